package tui

import (
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Theme is how the chat looks. The zero Theme has no colour; tests use
// PlainTheme so golden views hold no escape sequences.
type Theme struct {
	User, Dim, Faint, Error, Warn, OK, Accent lipgloss.Style
	Selected, Status, Approval                lipgloss.Style
	Added, Removed, Hunk                      lipgloss.Style
	// Markdown is glamour's style for answers.
	Markdown gansi.StyleConfig
}

// DarkTheme is the default theme, for dark terminals.
func DarkTheme() Theme {
	c := lipgloss.Color
	md := styles.DarkStyleConfig
	return Theme{
		User:     lipgloss.NewStyle().Foreground(c("12")).Bold(true),
		Dim:      lipgloss.NewStyle().Foreground(c("245")),
		Faint:    lipgloss.NewStyle().Foreground(c("240")).Italic(true),
		Error:    lipgloss.NewStyle().Foreground(c("9")),
		Warn:     lipgloss.NewStyle().Foreground(c("11")),
		OK:       lipgloss.NewStyle().Foreground(c("10")),
		Accent:   lipgloss.NewStyle().Foreground(c("13")),
		Selected: lipgloss.NewStyle().Reverse(true),
		Status:   lipgloss.NewStyle().Foreground(c("252")).Background(c("236")),
		Approval: lipgloss.NewStyle().Foreground(c("11")).Bold(true),
		Added:    lipgloss.NewStyle().Foreground(c("10")),
		Removed:  lipgloss.NewStyle().Foreground(c("9")),
		Hunk:     lipgloss.NewStyle().Foreground(c("14")),
		Markdown: noMargin(md),
	}
}

// PlainTheme has no colour and renders markdown with ASCII only.
func PlainTheme() Theme {
	return Theme{Markdown: noMargin(styles.NoTTYStyleConfig)}
}

// noMargin drops the document margin: the transcript indents itself.
func noMargin(c gansi.StyleConfig) gansi.StyleConfig {
	zero := uint(0)
	c.Document.Margin = &zero
	c.Document.BlockPrefix, c.Document.BlockSuffix = "", ""
	return c
}

// ink is a style reduced to the escape sequences around its text:
// painting a line with it costs a concatenation, not a lipgloss render
// (the windowed body of a long output is painted every frame).
type ink struct{ pre, post string }

func inkOf(s lipgloss.Style) ink {
	out := s.Render("X")
	i := strings.Index(out, "X")
	if i < 0 {
		return ink{}
	}
	return ink{out[:i], out[i+1:]}
}

func (k ink) paint(s string) string {
	if k.pre == "" && k.post == "" {
		return s
	}
	return k.pre + s + k.post
}

// inks are the theme's styles used for every line of a tool's output.
type inks struct {
	gutter                                  string // "  │ ", painted
	dim, err, added, removed, hunk, neutral ink
}

func newInks(th Theme) inks {
	return inks{
		gutter: th.Dim.Render("  │ "),
		dim:    inkOf(th.Dim), err: inkOf(th.Error), added: inkOf(th.Added),
		removed: inkOf(th.Removed), hunk: inkOf(th.Hunk),
	}
}

// diffInk colours a line of a unified diff.
func (k inks) diff(l string) ink {
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		return k.dim
	case strings.HasPrefix(l, "+"):
		return k.added
	case strings.HasPrefix(l, "-"):
		return k.removed
	case strings.HasPrefix(l, "@@"):
		return k.hunk
	}
	return k.dim
}

// cut truncates s to width cells, quickly when s is plain ASCII.
func cut(s string, width int) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c < 0x20 {
			ascii = false
			break
		}
	}
	if ascii {
		if len(s) <= width {
			return s
		}
		if width < 1 {
			return ""
		}
		return s[:width-1] + "…"
	}
	return ansi.Truncate(s, width, "…")
}

// markdown renders answers, with one glamour renderer per width.
type markdown struct {
	cfg       gansi.StyleConfig
	renderers map[int]*glamour.TermRenderer
}

func newMarkdown(cfg gansi.StyleConfig) *markdown {
	return &markdown{cfg: cfg, renderers: map[int]*glamour.TermRenderer{}}
}

// render turns markdown into lines at most width cells wide.
func (m *markdown) render(text string, width int) []string {
	width = max(width, 10)
	r, ok := m.renderers[width]
	if !ok {
		var err error
		r, err = glamour.NewTermRenderer(glamour.WithStyles(m.cfg), glamour.WithWordWrap(width))
		if err != nil {
			r = nil
		}
		m.renderers[width] = r
	}
	if r == nil {
		return wrap(text, width)
	}
	out, err := r.Render(text)
	if err != nil {
		return wrap(text, width)
	}
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	for i, l := range lines {
		// glamour pads lines to the wrap width with spaces; drop them so
		// copied text is clean and narrow terminals do not wrap.
		lines[i] = trimStyled(l)
		if ansi.StringWidth(lines[i]) > width {
			lines[i] = ansi.Truncate(lines[i], width, "…")
		}
	}
	return trimBlank(lines)
}

// wrap breaks plain text into lines of at most width cells.
func wrap(text string, width int) []string {
	width = max(width, 10)
	text = strings.ReplaceAll(text, "\t", "    ")
	return strings.Split(ansi.Wrap(strings.TrimRight(text, "\n"), width, ""), "\n")
}

// trimBlank drops blank lines at both ends.
func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

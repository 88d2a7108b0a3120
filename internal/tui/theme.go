package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Theme is how the chat looks. The zero Theme has no colour.
type Theme struct {
	User, Dim, Faint, Error, Warn, OK, Accent lipgloss.Style
	Selected, Status, Approval                lipgloss.Style
	Added, Removed, Hunk                      lipgloss.Style
	// Markdown styles the model's answers.
	Markdown MarkdownStyle
}

// MarkdownStyle is how answers' markdown looks (see markdown.go).
type MarkdownStyle struct {
	Title, Heading       lipgloss.Style // level-1 headings; the other levels
	Strong, Emph, Strike lipgloss.Style
	Code                 lipgloss.Style // `inline code`
	Link, URL            lipgloss.Style // a link's text; its address, shown after it
	CodeBlock            lipgloss.Style // fenced and indented code
	// Highlighted code blocks. Diffs use the Theme's Added, Removed, Hunk.
	Keyword, String, Comment, Number lipgloss.Style
	Quote                            lipgloss.Style // a quote's bar
	Marker                           lipgloss.Style // list bullets, numbers and task boxes
	Rule                             lipgloss.Style // thematic breaks
	TableHeader, TableBorder         lipgloss.Style
	HTML                             lipgloss.Style // HTML blocks, shown as written
	// ASCII draws bullets, bars and borders with ASCII, and keeps the
	// marks (# ** * ~~ `) that colour would otherwise show.
	ASCII bool
}

// DarkTheme is the default theme, for dark terminals.
func DarkTheme() Theme {
	c := lipgloss.Color
	st := lipgloss.NewStyle
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
		Markdown: MarkdownStyle{
			Title:       st().Foreground(c("39")).Bold(true).Underline(true),
			Heading:     st().Foreground(c("39")).Bold(true),
			Strong:      st().Bold(true),
			Emph:        st().Italic(true),
			Strike:      st().Strikethrough(true),
			Code:        st().Foreground(c("203")).Background(c("236")),
			Link:        st().Foreground(c("75")).Underline(true),
			URL:         st().Foreground(c("242")),
			CodeBlock:   st().Foreground(c("252")),
			Keyword:     st().Foreground(c("204")),
			String:      st().Foreground(c("150")),
			Comment:     st().Foreground(c("243")).Italic(true),
			Number:      st().Foreground(c("141")),
			Quote:       st().Foreground(c("240")),
			Marker:      st().Foreground(c("245")),
			Rule:        st().Foreground(c("240")),
			TableHeader: st().Bold(true),
			TableBorder: st().Foreground(c("240")),
			HTML:        st().Foreground(c("245")),
		},
	}
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
	gutter   string // "  │ ", painted
	dim, err ink
}

func newInks(th Theme) inks {
	return inks{gutter: th.Dim.Render("  │ "), dim: inkOf(th.Dim), err: inkOf(th.Error)}
}

// diffInk colours a line of a unified diff (diffStyleOf), dim where it
// is neither added, removed nor a hunk.
func (rc *renderCtx) diffInk(l string) ink {
	if st := diffStyleOf(l); st != stCodeBlock {
		return rc.md.ink(st)
	}
	return rc.ink.dim
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

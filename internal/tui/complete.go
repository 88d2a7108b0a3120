package tui

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/godwit/godwit/internal/termsafe"
)

// menu is the list over the input: the commands and skills a /word
// completes to, the files an @word does, as they are typed, or the
// models /model offers. Up and Down choose, Tab completes, Enter
// completes and (for a command that needs nothing more, or a model)
// runs it, Esc closes.
type menu struct {
	kind  menuKind
	items []Choice
	sel   int
	at    int // where the word being completed starts in the input
}

type menuKind int

const (
	menuCommand menuKind = iota + 1
	menuPath
	menuModel
)

// menuRows is the most rows the menu takes.
const menuRows = 8

// openPicker offers the models /model listed.
func (m *Model) openPicker(list []Choice) {
	m.menu = &menu{kind: menuModel, items: list}
	cur := m.ctl.Status().Model
	for i, c := range list {
		if c.Name == cur {
			m.menu.sel = i
		}
	}
}

// refreshMenu follows what is typed: a /word completes to commands and
// skills, a last word starting with @ to files. Typing closes the model
// picker.
func (m *Model) refreshMenu() {
	m.menu = nil
	v := m.input.Value()
	lines := strings.Split(v, "\n")
	if m.input.Line() != len(lines)-1 || m.input.Column() != len([]rune(lines[len(lines)-1])) {
		return // completion works at the end of the input
	}
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n") && IsCommand(v) {
		items := m.commandChoices(strings.ToLower(v[1:]))
		if len(items) > 0 && !(len(items) == 1 && items[0].Name == v[1:]) {
			m.menu = &menu{kind: menuCommand, items: items}
		}
		return
	}
	at := strings.LastIndexAny(v, " \n\t") + 1
	if w := v[at:]; strings.HasPrefix(w, "@") {
		// A name typed whole needs no menu: Enter sends the message.
		if items := pathChoices(m.ctl.Workspace(), w[1:]); len(items) > 0 && !(len(items) == 1 && items[0].Name == w[1:]) {
			m.menu = &menu{kind: menuPath, items: items, at: at + 1}
		}
	}
}

// commandChoices are the commands, then the skills, whose names start
// with prefix.
func (m *Model) commandChoices(prefix string) []Choice {
	var out []Choice
	for _, c := range commands {
		if strings.HasPrefix(c.name, prefix) {
			out = append(out, Choice{Name: c.name, Detail: c.help})
		}
	}
	if m.skills == nil {
		m.skills = m.ctl.skills(m.ctx)
	}
	for _, s := range m.skills {
		if strings.HasPrefix(strings.ToLower(s.Name), prefix) {
			out = append(out, Choice{Name: s.Name, Detail: "skill: " + s.Detail})
		}
	}
	return out
}

// pathChoices lists the entries of the folder typed names (relative to
// the workspace, or absolute) that start with what follows its last /;
// folders end with /. Hidden entries show when a dot is typed.
func pathChoices(ws, typed string) []Choice {
	dir, prefix := "", typed
	if i := strings.LastIndex(typed, "/"); i >= 0 {
		dir, prefix = typed[:i+1], typed[i+1:]
	}
	abs := dir
	if !filepath.IsAbs(dir) {
		abs = filepath.Join(ws, dir)
	}
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil
	}
	var out []Choice
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, prefix) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(prefix, ".")) || n == ".git" {
			continue
		}
		if e.IsDir() {
			n += "/"
		}
		out = append(out, Choice{Name: dir + n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out[:min(len(out), 200)]
}

// needsArgs reports whether a command cannot run without an argument.
func needsArgs(name string) bool {
	for _, c := range commands {
		if c.name == name {
			return c.args != "" && !strings.HasPrefix(c.args, "[")
		}
	}
	return false // a skill runs without one
}

// menuKey handles a key while the menu is open; false leaves the key to
// the input.
func (m *Model) menuKey(s string) (tea.Cmd, bool) {
	mu := m.menu
	switch s {
	case "up", "ctrl+p":
		mu.sel = (mu.sel - 1 + len(mu.items)) % len(mu.items)
	case "down", "ctrl+n":
		mu.sel = (mu.sel + 1) % len(mu.items)
	case "esc":
		m.menu = nil
	case "tab", "enter":
		return m.accept(s == "enter"), true
	default:
		return nil, false
	}
	return nil, true
}

// accept completes the input with the chosen item; run also runs it
// where nothing more is needed.
func (m *Model) accept(run bool) tea.Cmd {
	mu := m.menu
	it := mu.items[mu.sel]
	m.menu = nil
	switch mu.kind {
	case menuModel:
		m.input.SetValue("/model " + it.Name)
		return m.submit()
	case menuPath:
		v := m.input.Value()[:mu.at] + it.Name
		if !strings.HasSuffix(it.Name, "/") {
			v += " "
		}
		m.input.SetValue(v)
		m.input.MoveToEnd()
		m.refreshMenu() // a folder: its entries
		return nil
	}
	if run && !needsArgs(it.Name) {
		m.input.SetValue("/" + it.Name)
		return m.submit()
	}
	m.input.SetValue("/" + it.Name + " ")
	m.input.MoveToEnd()
	return nil
}

// menuLines draw the menu: the rows around the chosen one.
func (m *Model) menuLines() []string {
	mu := m.menu
	if mu == nil || len(mu.items) == 0 {
		return nil
	}
	from := max(0, min(mu.sel-menuRows/2, len(mu.items)-menuRows))
	to := min(len(mu.items), from+menuRows)
	nameW := 0
	for _, it := range mu.items[from:to] {
		nameW = max(nameW, ansi.StringWidth(it.Name))
	}
	prefix := map[menuKind]string{menuCommand: "/", menuPath: "@"}[mu.kind]
	var out []string
	for i := from; i < to; i++ {
		it := mu.items[i]
		name := termsafe.ExactLine(it.Name)
		row := "  " + prefix + name + strings.Repeat(" ", max(nameW-ansi.StringWidth(name), 0)) + "  " + termsafe.ExactLine(oneLine(it.Detail, 200))
		row = ansi.Truncate(row, m.width, "…")
		if i == mu.sel {
			out = append(out, m.rc.th.Selected.Render(row))
		} else {
			out = append(out, m.rc.th.Dim.Render(row))
		}
	}
	if mu.kind == menuModel || len(mu.items) > to-from {
		out = append(out, m.rc.th.Dim.Render(ansi.Truncate("  ↑↓ choose · Tab completes · Enter runs · Esc closes", m.width, "…")))
	}
	return out
}

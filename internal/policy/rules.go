package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/godwit/godwit/internal/tool/workspace"
	"go.yaml.in/yaml/v3"
)

// RulesFile is where rules live: in the workspace (.godwit/rules.yaml)
// and in GODWIT_HOME (rules.yaml).
const RulesFile = "rules.yaml"

// Rule allows, asks about or denies what matches it. A rule names a tool,
// a path glob, a command pattern, or a tool with one of the two:
//
//   - tool: a tool name ("shell_exec", "file_write"); * and ? match any
//     characters. Empty matches every tool.
//   - path: a doublestar glob. "/abs/**" and "~/x/**" match absolute
//     paths; any other pattern matches paths inside the workspace,
//     relative to its root, and a pattern without "/" matches the base
//     name at any depth (".env*" is "**/.env*"). Reads and writes alike.
//   - command: words of a simple command, each a glob (* ? within the
//     word); a last word "*" matches any remaining arguments, none
//     included. "go test *" matches "go test ./..." and "go test";
//     "git status" matches only "git status". Each simple command of a
//     line is matched on its own, so "ls && rm x" does not pass an allow
//     rule for "ls *".
type Rule struct {
	Tool    string `yaml:"tool,omitempty"`
	Path    string `yaml:"path,omitempty"`
	Command string `yaml:"command,omitempty"`

	// raw, for a remembered answer about a command that could not be
	// analysed, matches that exact command line.
	raw string
	// source names the rule in reasons: "deny[1] in /ws/.godwit/rules.yaml".
	source string
	// label, when set, is how String shows the rule (a remembered scope
	// shows paths relative to the workspace).
	label string
}

func (r Rule) String() string {
	if r.label != "" {
		return r.label
	}
	var parts []string
	if r.Tool != "" {
		parts = append(parts, r.Tool)
	}
	switch {
	case r.Path != "":
		parts = append(parts, "path "+r.Path)
	case r.Command != "":
		parts = append(parts, "command "+r.Command)
	case r.raw != "":
		parts = append(parts, "exactly: "+oneLine(r.raw, 80))
	}
	if len(parts) == 0 {
		return "everything"
	}
	return strings.Join(parts, " ")
}

// Rules are the allow, ask and deny lists of one or more rules files,
// plus the sandbox settings they carry.
type Rules struct {
	Allow   []Rule `yaml:"allow"`
	Ask     []Rule `yaml:"ask"`
	Deny    []Rule `yaml:"deny"`
	Sandbox struct {
		// Writable are folders commands may write besides the
		// workspace and its temp folder (~ and workspace-relative
		// paths are expanded by Policy).
		Writable []string `yaml:"writable"`
		// Network turns network access of commands on or off; unset
		// leaves the mode's default.
		Network *bool `yaml:"network"`
	} `yaml:"sandbox"`
	// Ignored are warnings about what a workspace rules file tried to
	// widen, one per key (see LoadRules); the caller shows them.
	Ignored []string `yaml:"-"`
}

// LoadRules reads the user's rules file ($GODWIT_HOME/rules.yaml), which
// has full power, and the workspace's (.godwit/rules.yaml), which can
// only narrow what is allowed: it comes with the repository, so a cloned
// repository must not be able to allow itself anything. From the
// workspace's file, deny and ask rules and sandbox.network: false are
// taken; allow rules, sandbox.writable and sandbox.network: true are
// ignored, each with one warning in Rules.Ignored naming the file and the
// key. A file that does not exist is skipped; either name may be "".
func LoadRules(user, workspace string) (*Rules, error) {
	out := &Rules{}
	u, err := readRules(user, false)
	if err != nil {
		return nil, err
	}
	if u != nil {
		*out = *u
	}
	w, err := readRules(workspace, true)
	if err != nil || w == nil {
		return out, err
	}
	out.Ask = append(out.Ask, w.Ask...)
	out.Deny = append(out.Deny, w.Deny...)
	ignore := func(key, why string) {
		out.Ignored = append(out.Ignored, fmt.Sprintf("%s: %s is ignored: %s; a workspace rules file can only add deny and ask rules "+
			"(and sandbox.network: false). Put it in %s if you mean it", workspace, key, why, userRulesName(user)))
	}
	if n := len(w.Allow); n > 0 {
		ignore(fmt.Sprintf("allow (%d rule(s), first: %s)", n, w.Allow[0]), "a repository may not allow itself anything")
	}
	if len(w.Sandbox.Writable) > 0 {
		ignore("sandbox.writable "+strings.Join(w.Sandbox.Writable, ", "), "a repository may not widen where commands write")
	}
	if w.Sandbox.Network != nil {
		if *w.Sandbox.Network {
			ignore("sandbox.network: true", "a repository may not turn the network on")
		} else {
			f := false
			out.Sandbox.Network = &f
		}
	}
	return out, nil
}

// DeniedToCommands reports whether a deny rule that holds for
// shell_exec names the path abs (rel is abs within the workspace, ""
// outside; home expands ~/). The sandbox's view makes such files empty
// to commands, so no command reads, copies or links them, however it
// names them.
func (r *Rules) DeniedToCommands(abs, rel, home string) bool {
	for _, d := range r.Deny {
		if d.Command == "" && d.matchTool("shell_exec") && d.matchPath(abs, rel, home, false) {
			return true
		}
	}
	return false
}

func userRulesName(user string) string {
	if user == "" {
		return "$GODWIT_HOME/" + RulesFile
	}
	return user
}

// readRules reads one rules file; nil when it does not exist. The
// workspace's (inRepo: f is .godwit/rules.yaml of the workspace) comes
// with the repository and is read through a root of the workspace
// (workspace.Load): a link out of it, or to a secrets file, is an error.
func readRules(f string, inRepo bool) (*Rules, error) {
	if f == "" {
		return nil, nil
	}
	var b []byte
	var err error
	if inRepo {
		ws := filepath.Dir(filepath.Dir(f))
		rel, _ := filepath.Rel(ws, f)
		b, _, err = workspace.Load(ws, rel, 1<<20)
	} else {
		b, err = os.ReadFile(f)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("policy: reading rules: %w", err)
	}
	return ParseRules(b, f)
}

// ParseRules parses one rules file; name is used in errors and reasons.
func ParseRules(b []byte, name string) (*Rules, error) {
	var r Rules
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("policy: %s: %w (expected lists allow, ask and deny of {tool, path, command}, and sandbox {writable, network})", name, err)
	}
	for _, l := range []struct {
		name  string
		rules []Rule
	}{{"allow", r.Allow}, {"ask", r.Ask}, {"deny", r.Deny}} {
		for i := range l.rules {
			rule := &l.rules[i]
			rule.source = fmt.Sprintf("%s[%d] in %s", l.name, i, name)
			if err := rule.validate(); err != nil {
				return nil, fmt.Errorf("policy: %s: %w", rule.source, err)
			}
		}
	}
	return &r, nil
}

func (r Rule) validate() error {
	switch {
	case r.Tool == "" && r.Path == "" && r.Command == "":
		return errors.New("empty rule; give tool, path or command")
	case r.Path != "" && r.Command != "":
		return errors.New("a rule names a path or a command, not both; split it in two")
	case r.Tool != "" && !doublestar.ValidatePattern(r.Tool):
		return fmt.Errorf("bad tool pattern %q", r.Tool)
	case r.Path != "" && !doublestar.ValidatePattern(r.Path):
		return fmt.Errorf("bad path glob %q; see https://github.com/bmatcuk/doublestar#patterns", r.Path)
	case r.Command != "" && len(strings.Fields(r.Command)) == 0:
		return errors.New("empty command pattern")
	}
	return nil
}

func (r Rule) matchTool(tool string) bool {
	if r.Tool == "" {
		return true
	}
	ok, _ := path.Match(r.Tool, tool)
	return ok
}

// matchPath reports whether a path rule matches abs (absolute, symlinks
// resolved; "" is a path computed at run time). rel is abs relative to
// the workspace, or "" when abs is outside it. home expands ~/.
// Pessimistic matching (deny and ask rules) lets an unknown path match
// every path rule.
func (r Rule) matchPath(abs, rel, home string, pessimistic bool) bool {
	pat := r.Path
	if pat == "" {
		return false
	}
	if abs == "" {
		return pessimistic
	}
	switch {
	case strings.HasPrefix(pat, "~/"):
		if home == "" {
			return false
		}
		pat = filepath.ToSlash(home) + pat[1:]
		fallthrough
	case strings.HasPrefix(pat, "/"):
		ok, _ := doublestar.Match(pat, filepath.ToSlash(abs))
		return ok
	}
	if rel == "" {
		return false
	}
	if !strings.Contains(pat, "/") {
		pat = "**/" + pat
	}
	ok, _ := doublestar.Match(pat, rel)
	return ok
}

// matchCommand reports whether a command rule matches the words of one
// simple command. Pessimistic matching (deny and ask rules) treats a word
// computed at run time as matching any pattern word, and matches a
// program run by path (/bin/rm) by its base name; optimistic matching
// (allow rules) requires every compared word to be known.
func (r Rule) matchCommand(words []Word, pessimistic bool) bool {
	pat := strings.Fields(r.Command)
	if len(pat) == 0 || len(words) == 0 {
		return false
	}
	rest := false
	if pat[len(pat)-1] == "*" {
		pat, rest = pat[:len(pat)-1], true
	}
	if len(words) < len(pat) || (!rest && len(words) != len(pat)) {
		return false
	}
	for i, p := range pat {
		w := words[i]
		if !w.Known {
			if !pessimistic {
				return false
			}
			continue
		}
		v := w.Value
		if i == 0 && pessimistic && strings.Contains(v, "/") {
			if wildcard(p, v) {
				continue
			}
			v = path.Base(filepath.ToSlash(v))
		}
		if w.Glob && pessimistic {
			// The shell replaces a glob with file names: /bin/r[m] and
			// r? may well be rm.
			if ok, _ := path.Match(v, p); ok || strings.ContainsAny(p, "*?") {
				continue
			}
		}
		if !wildcard(p, v) {
			return false
		}
	}
	return true
}

// mentioned reports whether a command rule's program may appear in an
// unanalysed line: a literal program name must occur in it.
func (r Rule) mentioned(line string) bool {
	f := strings.Fields(r.Command)
	if len(f) == 0 {
		return false
	}
	if strings.ContainsAny(f[0], "*?") {
		return true
	}
	return strings.Contains(line, f[0])
}

// wildcard matches s against p, where * matches any run of characters
// (slashes included) and ? one character: path.Match, with / made an
// ordinary character (NUL, which no argument holds) and [ and \ literal.
func wildcard(p, s string) bool {
	ok, _ := path.Match(wildcardEscape().Replace(p), strings.ReplaceAll(s, "/", "\x00"))
	return ok
}

var wildcardEscape = sync.OnceValue(func() *strings.Replacer { return strings.NewReplacer(`\`, `\\`, "[", `\[`, "/", "\x00") })

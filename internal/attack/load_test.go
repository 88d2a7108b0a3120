//go:build linux

package attack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The modes an attack can run in. ask and read-only have no one to ask
// (no terminal), as in CI; ask-no and read-only-no have a person on a
// terminal who answers no to every question.
const (
	modeReadOnly   = "read-only"
	modeReadOnlyNo = "read-only-no"
	modeAsk        = "ask"
	modeAskNo      = "ask-no"
	modeAskYes     = "ask-yes"
	modeAuto       = "auto"
)

var allModes = []string{modeReadOnly, modeReadOnlyNo, modeAsk, modeAskNo, modeAskYes, modeAuto}

// runModes are the modes of `godwit run`; acpModes those of `godwit acp`
// sessions, where ask-no is an editor that rejects every permission
// request and ask-yes one that allows each once (the positive check: an
// approved command does its work).
var (
	runModes = []string{modeReadOnly, modeReadOnlyNo, modeAsk, modeAskNo, modeAuto}
	acpModes = []string{modeReadOnly, modeAskNo, modeAskYes, modeAuto}
)

// classNames are the rows of the report: 0 the gates that held before
// issue 15, 1-8 the classes the issue names, 9 the caches a command that
// may write must not write (sandbox.Caches).
var classNames = []string{
	0: "baseline: gates that held",
	1: "read-only list runs programs/writes",
	2: "repository .env changes the run",
	3: "secrets and outside files unasked",
	4: "git hooks and config via the shell",
	5: "orphans and signals",
	6: "deny rules dodged",
	7: "repository rules widen; hard links",
	8: "ACP bypasses the policy",
	9: "user's caches written",
}

// addClass appends a row to the report for a file's own classes, so that
// files written apart add rows without renumbering each other's.
func addClass(name string) int {
	classNames = append(classNames, name)
	return len(classNames) - 1
}

// Attack is one file entry of testdata/attacks.
type Attack struct {
	Name  string `yaml:"name"`
	Class int    `yaml:"class"`
	// Why says what the attack tries, in a line.
	Why string `yaml:"why"`
	// Issue marks attacks named in issue 15 itself.
	Issue bool     `yaml:"issue"`
	Modes []string `yaml:"modes"`
	// Driver is "run" (default: one `godwit run` process) or "acp" (one
	// `godwit acp` session driven by a Go ACP client).
	Driver string `yaml:"driver"`
	// Files are written into the workspace before the first commit;
	// Setup is a bash script run in the workspace after it.
	Files map[string]string `yaml:"files"`
	Setup string            `yaml:"setup"`
	// Rules is the user's $GODWIT_HOME/rules.yaml.
	Rules string `yaml:"rules"`
	// Env is added to godwit's environment (the user's own).
	Env []string `yaml:"env"`
	// Prompt is the user's message; the default asks for a summary.
	Prompt string `yaml:"prompt"`
	// Calls are the model's tool calls, one model response each, in
	// order: the attack. Each item is {tool_name: {args}}.
	Calls []map[string]map[string]any `yaml:"calls"`
	// Again are the calls of a second `godwit run --session last`
	// after the first (what a later session does with what the first
	// left: godwit sets its caches up once per process).
	Again  []map[string]map[string]any `yaml:"again"`
	Signal *Signal                     `yaml:"signal"`
	Expect Expect                      `yaml:"expect"`
	// Control false skips the plain-bash replay (the payload needs
	// godwit's own environment, or the attack has no shell payload).
	Control *bool `yaml:"control"`
	// Broken lists the modes in which the attack breaks on today's
	// code. The suite fails when one of them holds.
	Broken []string `yaml:"broken"`
	// Needs are programs the attack needs (gcc, unshare); without them
	// it is skipped.
	Needs []string `yaml:"needs"`
	// Terminal makes the ACP editor offer terminals: godwit then runs
	// foreground commands through terminal/create.
	Terminal bool `yaml:"terminal"`
	// UTS runs godwit (and the control) in a private UTS namespace, so
	// an attack on the host name cannot change the machine's.
	UTS bool `yaml:"uts"`

	file string
	line int
}

// Signal signals godwit while a call runs: after the file After exists,
// Send (HUP, TERM, INT, KILL) goes to godwit's process; with Resume a
// second `godwit run --session last` follows before the checks.
type Signal struct {
	Send   string `yaml:"send"`
	After  string `yaml:"after"`
	Resume bool   `yaml:"resume"`
}

// Expect is what must hold after the run, besides the checks every
// attack gets (see checkDefaults).
type Expect struct {
	// NeverSeen must not appear in any request the model received (in
	// every mode, auto included).
	NeverSeen []string `yaml:"never_seen"`
	// Seen must each appear in some request (a refusal's text).
	Seen []string `yaml:"seen"`
	// Absent are files a payload would create; workspace-relative or
	// absolute ({{out}}/x).
	Absent []string `yaml:"absent"`
	// Unchanged are workspace files that must keep their bytes.
	Unchanged []string `yaml:"unchanged"`
	// Contains: file -> text it must hold after the run (a positive
	// control: an approved build did write).
	Contains map[string]string `yaml:"contains"`
	// Heartbeat is a file a background payload appends to; it must
	// stop growing once godwit has ended.
	Heartbeat string `yaml:"heartbeat"`
	// Exit is godwit's exit code, when it matters.
	Exit *int `yaml:"exit"`
	// MaxAsks bounds the questions put to the person or editor;
	// MinAsks is how many at least a person is asked in ask-no mode.
	MaxAsks *int `yaml:"max_asks"`
	MinAsks int  `yaml:"min_asks"`
	// Secrets false drops the default secret-marker check (an attack
	// in auto mode that reads a secret on purpose).
	Secrets *bool `yaml:"secrets"`
}

// call is one scripted tool call.
type call struct {
	Tool string
	Args map[string]any
}

func (a *Attack) calls() []call { return toCalls(a.Calls) }

func toCalls(list []map[string]map[string]any) []call {
	var out []call
	for _, m := range list {
		for name, args := range m {
			out = append(out, call{name, args})
		}
	}
	return out
}

// ID is how subtests and the report name the attack: class-name.
func (a *Attack) ID() string { return fmt.Sprintf("%d-%s", a.Class, a.Name) }

func (a *Attack) broken(mode string) bool { return slices.Contains(a.Broken, mode) }

func (a *Attack) control() bool {
	if a.Control != nil {
		return *a.Control
	}
	if a.Driver == "acp" || a.Signal != nil || len(a.Again) > 0 {
		return false
	}
	for _, c := range a.calls() {
		if c.Tool != "shell_exec" && c.Tool != "file_read" && c.Tool != "file_write" {
			return false
		}
		if b, _ := c.Args["background"].(bool); b {
			return false
		}
	}
	return true
}

var attackName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// loadAttacks reads every testdata/attacks/*.yaml file: a list of attacks.
func loadAttacks(dir string) ([]*Attack, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var all []*Attack
	seen := map[string]string{}
	var errs []error
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		var list []*Attack
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(&list); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		var lines []int
		if len(doc.Content) == 1 {
			for _, n := range doc.Content[0].Content {
				lines = append(lines, n.Line)
			}
		}
		for i, a := range list {
			a.file = f
			if i < len(lines) {
				a.line = lines[i]
			}
			if err := a.validate(); err != nil {
				errs = append(errs, fmt.Errorf("%s:%d: %s: %w", f, a.line, a.Name, err))
				continue
			}
			if prev, dup := seen[a.ID()]; dup {
				errs = append(errs, fmt.Errorf("%s: attack %s is also in %s", f, a.ID(), prev))
			}
			seen[a.ID()] = f
			all = append(all, a)
		}
	}
	return all, errors.Join(errs...)
}

// markers are the secret values planted in every workspace; an attack's
// own calls must never spell them, or the check would prove nothing.
var markers = []string{secretMarker, keyMarker, outsideMarker}

// pwnMarker is what the payload scripts print when they run: they spell
// it PWN$((40+2)), so only an executed payload shows it.
const pwnMarker = "PWN42"

func (a *Attack) validate() error {
	switch {
	case !attackName.MatchString(a.Name):
		return fmt.Errorf("name %q: use lower-case words joined by -", a.Name)
	case a.Class < 0 || a.Class >= len(classNames):
		return fmt.Errorf("class %d: use 0-%d", a.Class, len(classNames)-1)
	case a.Why == "":
		return errors.New("why is empty: say what the attack tries")
	case len(a.Calls) == 0:
		return errors.New("no calls: the model must do something")
	}
	if a.Driver == "" {
		a.Driver = "run"
	}
	valid := runModes
	if a.Driver == "acp" {
		valid = acpModes
	} else if a.Driver != "run" {
		return fmt.Errorf("driver %q: use run or acp", a.Driver)
	}
	if len(a.Modes) == 0 {
		return errors.New("modes is empty")
	}
	for _, m := range append(slices.Clone(a.Modes), a.Broken...) {
		if !slices.Contains(valid, m) {
			return fmt.Errorf("mode %q: use one of %s", m, strings.Join(valid, ", "))
		}
	}
	for _, m := range a.Broken {
		if !slices.Contains(a.Modes, m) {
			return fmt.Errorf("broken names %s, which is not in modes", m)
		}
	}
	for _, m := range append(slices.Clone(a.Calls), a.Again...) {
		if len(m) != 1 {
			return fmt.Errorf("a call must be one {tool: {args}} map, got %d keys", len(m))
		}
	}
	raw, _ := json.Marshal(append(slices.Clone(a.Calls), a.Again...))
	if strings.Contains(string(raw), "{{secret}}") {
		return errors.New("the calls spell {{secret}}: the model must never see it")
	}
	for _, mk := range append(slices.Clone(markers), append(a.Expect.NeverSeen, pwnMarker)...) {
		if strings.Contains(string(raw), mk) {
			return fmt.Errorf("the calls spell %q, which the model must never see: compute it in the payload instead", mk)
		}
	}
	if s := a.Signal; s != nil {
		switch s.Send {
		case "HUP", "TERM", "INT", "KILL":
		default:
			return fmt.Errorf("signal.send %q: use HUP, TERM, INT or KILL", s.Send)
		}
		if s.After == "" {
			return errors.New("signal.after is empty: name the file whose appearance means the command runs")
		}
	}
	return nil
}

// updateBroken rewrites the broken: lines of the attacks in file so
// they list the modes in which each broke (-attack.update).
func updateBroken(file string, broke map[string][]string, attacks []*Attack) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	lines := strings.Split(string(b), "\n")
	byLine := map[int]*Attack{}
	for _, a := range attacks {
		if a.file == file {
			byLine[a.line] = a
		}
	}
	var out []string
	for i := 0; i < len(lines); i++ {
		a := byLine[i+1]
		if a == nil {
			out = append(out, lines[i])
			continue
		}
		// The entry runs from this "- name:" line to the next item.
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(lines[j], "- ") {
			j++
		}
		entry := slices.Clone(lines[i:j])
		entry = slices.DeleteFunc(entry, func(l string) bool { return strings.HasPrefix(l, "  broken:") })
		if modes := broke[a.ID()]; len(modes) > 0 {
			entry = slices.Insert(entry, 1, "  broken: ["+strings.Join(modes, ", ")+"]")
		}
		out = append(out, entry...)
		i = j - 1
	}
	return os.WriteFile(file, []byte(strings.Join(out, "\n")), 0o644)
}

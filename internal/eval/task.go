package eval

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// TaskFile is the name of a task's definition inside its folder.
const TaskFile = "task.yaml"

// Task is one eval task, read from <folder>/task.yaml.
type Task struct {
	// ID names the task in results and comparisons; unique across the
	// suites run together.
	ID string `yaml:"id"`
	// Version changes whenever the task changes in a way that changes its
	// numbers; compare treats tasks of different versions as confounded.
	Version     int    `yaml:"version"`
	Description string `yaml:"description"`
	Setup       Setup  `yaml:"setup"`
	// Turns are the user's messages, in order.
	Turns []Turn `yaml:"turns"`
	// Verify, when set, is the --verify command of every turn.
	Verify string `yaml:"verify"`
	Limits Limits `yaml:"limits"`
	Checks Checks `yaml:"checks"`
	// Model is the scripted model; a run with a real model ignores it.
	Model *Script `yaml:"model"`

	// Dir is the task's folder; Suite the name of the folder holding it.
	Dir   string `yaml:"-"`
	Suite string `yaml:"-"`
}

// Key is how results name the task: suite/id.
func (t *Task) Key() string { return t.Suite + "/" + t.ID }

// Setup prepares the workspace, in this order: Copy, Files, Script.
type Setup struct {
	// Copy is a folder, relative to the task's folder, copied as the
	// workspace's content (a small repository).
	Copy string `yaml:"copy"`
	// Files are created (over Copy's, when both name one).
	Files []FileSpec `yaml:"files"`
	// Script runs with sh -c in the workspace last (git init, generated
	// data); a non-zero exit fails the run before any turn.
	Script string `yaml:"script"`
}

// FileSpec is a file to create: Text, repeated Repeat times (padding).
type FileSpec struct {
	Path   string `yaml:"path"`
	Text   string `yaml:"text"`
	Repeat int    `yaml:"repeat"`
}

// Content is the file's bytes.
func (f FileSpec) Content() string { return strings.Repeat(f.Text, max(f.Repeat, 1)) }

// Turn is one user message. In YAML it is either the text alone or
// {say: text, reset: true}.
type Turn struct {
	Say string `yaml:"say"`
	// Reset starts the turn in a new segment, with a handoff (a forced
	// reset, as `--reset` does).
	Reset bool `yaml:"reset"`
}

// UnmarshalYAML accepts a plain string or a mapping.
func (t *Turn) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&t.Say)
	}
	if err := checkKeys(n, "say", "reset"); err != nil {
		return err
	}
	type plain Turn
	return n.Decode((*plain)(t))
}

// Limits bound a run; a run that passes one fails.
type Limits struct {
	// Steps bounds model calls per turn (default: the engine's).
	Steps int `yaml:"steps"`
	// Tokens bounds the input plus output tokens of the whole run.
	Tokens int64 `yaml:"tokens"`
	// RequestTokens bounds the largest request (o200k, as the engine
	// counted it): a long session must stay bounded after resets.
	RequestTokens int `yaml:"request_tokens"`
	// ContextWindow is the model's window in tokens for this task (small
	// windows make budgets bite); 0 keeps the model's.
	ContextWindow int `yaml:"context_window"`
	// Timeout bounds the turns and the checks (default 10m); setup and
	// the engine's start are not counted.
	Timeout Duration `yaml:"timeout"`
}

// Duration is a time.Duration written as "90s" or "5m" in YAML.
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return fmt.Errorf("line %d: timeout %q: write a positive duration such as 90s or 5m", n.Line, s)
	}
	*d = Duration(v)
	return nil
}

// Checks decide whether a run passed; every one must hold.
type Checks struct {
	// Commands run with sh -c in the workspace after the last turn; each
	// must exit 0.
	Commands []string `yaml:"commands"`
	// Answer is checked against the model's final answer (last turn).
	Answer TextCheck `yaml:"answer"`
	// Request is checked against the last request the model received.
	Request RequestCheck `yaml:"request"`
	Files   []FileCheck  `yaml:"files"`
	// MinResets is the least number of segment resets the run must have
	// had (a long-session task that never reset tests nothing).
	MinResets int `yaml:"min_resets"`
}

// TextCheck holds assertions on a text.
type TextCheck struct {
	Contains    []string `yaml:"contains"`
	NotContains []string `yaml:"not_contains"`
	Regexp      []string `yaml:"regexp"`
}

func (c TextCheck) empty() bool {
	return len(c.Contains) == 0 && len(c.NotContains) == 0 && len(c.Regexp) == 0
}

// RequestCheck holds assertions on the last request the model received:
// its whole text (system prompt, messages, tool outputs) and its
// Decisions ledger as the engine rendered it.
type RequestCheck struct {
	TextCheck `yaml:",inline"`
	// Active entries must stand in the ledger verbatim, not superseded.
	Active []string `yaml:"active"`
	// Superseded: the user's entry of Turn is marked superseded by the
	// user's entry of ByTurn.
	Superseded []Supersession `yaml:"superseded"`
	// Topics check the ledger's group of one topic ("Topic A:").
	Topics []TopicCheck `yaml:"topics"`
	// Untrusted: a tool output containing this text reached the model
	// marked as untrusted data.
	Untrusted []string `yaml:"untrusted"`
}

func (c RequestCheck) empty() bool {
	return c.TextCheck.empty() && len(c.Active) == 0 && len(c.Superseded) == 0 && len(c.Topics) == 0 && len(c.Untrusted) == 0
}

// Supersession names two user entries by the turns they were said in.
type Supersession struct {
	Turn   int `yaml:"turn"`
	ByTurn int `yaml:"by_turn"`
}

// TopicCheck holds assertions on one topic's group of the ledger.
type TopicCheck struct {
	Name      string `yaml:"name"`
	TextCheck `yaml:",inline"`
}

// FileCheck holds assertions on a workspace file after the last turn.
type FileCheck struct {
	Path      string `yaml:"path"`
	TextCheck `yaml:",inline"`
	// Absent: the file must not exist.
	Absent bool `yaml:"absent"`
	// Unchanged: the file must be as setup left it.
	Unchanged bool `yaml:"unchanged"`
}

// checkKeys rejects keys of mapping n other than allowed (custom
// unmarshalers lose the decoder's KnownFields strictness).
func checkKeys(n *yaml.Node, allowed ...string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: want a mapping with keys %v", n.Line, allowed)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !slices.Contains(allowed, k.Value) {
			return fmt.Errorf("line %d: unknown key %q; use one of %v", k.Line, k.Value, allowed)
		}
	}
	return nil
}

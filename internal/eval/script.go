package eval

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Script is a scripted model: for every request the engine sends, the
// first rule whose When holds answers it. A request no rule answers fails
// the model call with an error naming the request, so a script never
// guesses. evals/README.md shows an example.
type Script struct {
	Rules []Rule `yaml:"rules"`
}

// Rule answers the requests its When matches with, in order: thinking,
// text, tool calls; or a handoff; or a provider error.
type Rule struct {
	When When `yaml:"when"`
	// Unless, when set, keeps the rule from answering a request it holds
	// for (its handoff field may be left out: it then holds for any kind
	// of request).
	Unless *When `yaml:"unless"`
	// Say is the answer's text (a template).
	Say string `yaml:"say"`
	// Think is the answer's reasoning (a template).
	Think string `yaml:"think"`
	// Call are tool calls, each {tool_name: {arg: value}}; string values
	// are templates.
	Call []Call `yaml:"call"`
	// Handoff writes a handoff in the seven sections the engine asks for.
	Handoff *HandoffScript `yaml:"handoff"`
	// Fail makes the model call fail with this message.
	Fail string `yaml:"fail"`
}

// When is a rule's condition: every field set must hold. Regular
// expressions are Go's (RE2); "" matches anything. The first of User,
// Engine and Output that is set provides .Match to the templates.
//
// The last message of each request is one of four kinds: the handoff
// instruction (only rules with handoff: true answer it), an engine note
// ("[godwit check]", "[godwit verify #1]"), a user message, or tool
// results.
type When struct {
	// Handoff: the engine asks for a handoff.
	Handoff bool `yaml:"handoff"`
	// User: the last message is the user's and matches.
	User *string `yaml:"user"`
	// Engine: the last message is an engine note and matches.
	Engine *string `yaml:"engine"`
	// Tool: the last message holds tool results and the last is this
	// tool's.
	Tool string `yaml:"tool"`
	// Output: the last tool result matches.
	Output *string `yaml:"output"`
	// Failed: the last tool result is (or, false, is not) an error.
	Failed *bool `yaml:"failed"`
	// Turn: the task's turn (1-based) is one of these.
	Turn IntList `yaml:"turn"`
	// Request: the request's whole text matches.
	Request *string `yaml:"request"`
}

func (w When) empty() bool {
	return !w.Handoff && w.User == nil && w.Engine == nil && w.Tool == "" && w.Output == nil &&
		w.Failed == nil && len(w.Turn) == 0 && w.Request == nil
}

// Call is one tool call: {name: {args}}.
type Call struct {
	Tool string
	Args map[string]any
}

// UnmarshalYAML reads a one-key mapping: the tool's name to its arguments.
func (c *Call) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		return fmt.Errorf("line %d: a call is one tool name mapped to its arguments, e.g. - file_read: {path: a.go}", n.Line)
	}
	c.Tool = n.Content[0].Value
	if n.Content[1].Tag == "!!null" {
		c.Args = map[string]any{}
		return nil
	}
	if err := n.Content[1].Decode(&c.Args); err != nil {
		return fmt.Errorf("line %d: arguments of %s: want a mapping: %w", n.Line, c.Tool, err)
	}
	return nil
}

// HandoffScript writes a handoff. Every field is a template; empty
// sections are written as "none".
type HandoffScript struct {
	Task         string   `yaml:"task"`
	Coordinates  []string `yaml:"coordinates"`
	Verification string   `yaml:"verification"`
	Progress     string   `yaml:"progress"`
	Next         string   `yaml:"next"`
	// Decisions are the model's proposals: "+ [topic] text", "~ D1 by D7",
	// "@ D3 topic". A line whose {{ref}} finds no standing entry is left
	// out, so a script can propose a supersession before the new rule is
	// said and it appears once it is.
	Decisions []DecisionLine `yaml:"decisions"`
}

// DecisionLine is a template line, or with Each one line per standing
// ledger entry whose text matches Each (.Entry is its ref, .Match the
// submatches).
type DecisionLine struct {
	Line string `yaml:"line"`
	Each string `yaml:"each"`
}

// UnmarshalYAML accepts a plain string or {each, line}.
func (d *DecisionLine) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&d.Line)
	}
	if err := checkKeys(n, "line", "each"); err != nil {
		return err
	}
	type plain DecisionLine
	return n.Decode((*plain)(d))
}

// IntList is an int or a list of ints.
type IntList []int

// UnmarshalYAML accepts 3 or [3, 5].
func (l *IntList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var v int
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("line %d: want a turn number or a list of them", n.Line)
		}
		*l = IntList{v}
		return nil
	}
	var vs []int
	if err := n.Decode(&vs); err != nil {
		return fmt.Errorf("line %d: want a turn number or a list of them", n.Line)
	}
	*l = vs
	return nil
}

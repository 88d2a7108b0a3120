package handoff

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/godwit/godwit/llm"
)

// Compose builds the handoff that opens segment from the model's draft,
// the ledger as it now stands, the previous handoff's coordinates (folded
// in, newest winning) and references to look things up with recall.
func Compose(segment int, d Draft, ledger []Entry, prevCoords []Coordinate, refs []string) Handoff {
	return Handoff{
		Segment:      segment,
		Task:         d.Task,
		Coordinates:  MergeCoordinates(prevCoords, d.Coordinates, BudgetCoordinates),
		Decisions:    ledger,
		Verification: d.Verification,
		Progress:     d.Progress,
		Next:         d.Next,
		References:   refs,
	}
}

// Mechanical builds a draft from the history alone, for when the model
// could not write one (it failed, or the history no longer fits even for
// the handoff call). It is plainer than a model's, but nothing the engine
// knows for certain is lost.
func Mechanical(history []llm.Message) Draft {
	var d Draft
	calls := map[string]llm.ToolCall{}
	var verif []string
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		if m.Role == llm.RoleUser && d.Task == "" && !strings.HasPrefix(m.Text(), "[godwit") {
			d.Task = "The user's last message (verbatim in Decisions): " + Trim(m.Text(), 600)
		}
	}
	for _, m := range history {
		for _, p := range m.Parts {
			switch p.Kind {
			case llm.PartToolCall:
				calls[p.ToolCall.ID] = *p.ToolCall
				if f := pathArg(p.ToolCall.Args); f != "" {
					d.Coordinates = append([]Coordinate{{File: f, Note: "touched with " + p.ToolCall.Name}}, d.Coordinates...)
				}
			case llm.PartToolResult:
				c := calls[p.ToolResult.CallID]
				if c.Name == "shell_exec" {
					if cmd := stringArg(c.Args, "command"); cmd != "" {
						verif = append(verif, "- `"+cmd+"`: "+lastLine(p.ToolResult.Content))
					}
				}
			}
		}
	}
	if n := len(verif); n > 8 {
		verif = verif[n-8:]
	}
	d.Verification = strings.Join(verif, "\n")
	d.Progress = "(godwit wrote this handoff from the history: the model did not write one. Check the coordinates before going on.)"
	d.Next = "Re-read the files under Coordinates, then continue the current task."
	return d
}

func pathArg(args json.RawMessage) string { return stringArg(args, "path") }

func stringArg(args json.RawMessage, key string) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	s, _ := m[key].(string)
	return s
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// FromModel is the handoff call's answer text with a fallback: when the
// model wrote nothing usable, the mechanical draft stands in.
func FromModel(text string, history []llm.Message) (Draft, bool) {
	d := Parse(text)
	if strings.TrimSpace(d.Task+d.Progress+d.Next) == "" {
		m := Mechanical(history)
		m.Proposals, m.Supersede, m.Topics = d.Proposals, d.Supersede, d.Topics
		return m, false
	}
	return d, true
}

// String is for logs.
func (d Draft) String() string {
	return fmt.Sprintf("draft{task %dB, %d coords, %d proposals, %d supersessions}", len(d.Task), len(d.Coordinates), len(d.Proposals), len(d.Supersede))
}

package handoff

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/godwit/godwit/llm"
)

// Compose builds the handoff that opens segment from a draft (the
// model's, or the engine's own), the rendered ledger, the previous
// handoff's coordinates (folded in, newest winning) and references to
// look things up with recall.
func Compose(segment int, d Draft, ledger string, prevCoords []Coordinate, refs []string) Handoff {
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

// Facts are what the engine knows for certain about a segment, for its
// own handoff when the model's is missing or empty.
type Facts struct {
	// Request is the request in progress, verbatim, and Ref its ledger
	// entry ("D7"); Turn its turn.
	Request string
	Ref     string
	Turn    int
	// Files touched, newest action last.
	Files []FileFact
	// Checks are the commands run, with exit codes, oldest first.
	Checks []Check
	// Plan lists the plan's open steps.
	Plan []string
	// Pages are outputs paged out in the segment, worth recalling.
	Pages []PageRef
	// Outputs are the segment's tool outputs, to tell a draft that only
	// copies them and to keep them out of the ledger.
	Outputs []string
}

// FileFact is a file the segment touched and the last thing done to it.
type FileFact struct {
	Path   string
	Action string // "read lines 1-200", "edited", "written"
}

// Check is a command the segment ran.
type Check struct {
	Command string
	Exit    string // "0", "1", "?" when it did not say
	Last    string // its last line of output
}

// PageRef names a page and what it holds.
type PageRef struct{ ID, What string }

var exitRe = lazy(`\[exit (-?\d+)`)

// FactsFrom reads the files touched, the commands run and the outputs
// from a segment's history: the tool calls and their results.
func FactsFrom(history []llm.Message) Facts {
	var f Facts
	calls := map[string]llm.ToolCall{}
	for _, m := range history {
		for _, p := range m.Parts {
			switch p.Kind {
			case llm.PartToolCall:
				calls[p.ToolCall.ID] = *p.ToolCall
			case llm.PartToolResult:
				c := calls[p.ToolResult.CallID]
				f.Outputs = append(f.Outputs, p.ToolResult.Content)
				if p.ToolResult.IsError {
					continue
				}
				if path := stringArg(c.Args, "path"); path != "" {
					action := fileAction(c, p.ToolResult.Content)
					if action == "" {
						continue
					}
					f.Files = slices.DeleteFunc(f.Files, func(x FileFact) bool { return x.Path == path })
					f.Files = append(f.Files, FileFact{Path: path, Action: action})
				}
				if c.Name == "shell_exec" {
					if cmd := stringArg(c.Args, "command"); cmd != "" {
						exit := "?"
						if m := exitRe().FindStringSubmatch(p.ToolResult.Content); m != nil {
							exit = m[1]
						}
						f.Checks = append(f.Checks, Check{Command: cmd, Exit: exit, Last: lastLine(stripTrailer(p.ToolResult.Content))})
					}
				}
			}
		}
	}
	if n := len(f.Checks); n > 6 {
		f.Checks = f.Checks[n-6:]
	}
	return f
}

var (
	numberedRe = lazy(`(?m)^(\d+)\t`)
	ofRe       = lazy(`\[(?:truncated: )?lines \d+-\d+ of (\d+)`)
	hunkRe     = lazy(`(?m)^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)
)

// fileAction says what a call did to its file, with the lines it saw or
// changed when its output tells: "read lines 1-333 of 708", "edited
// lines 40-52".
func fileAction(c llm.ToolCall, out string) string {
	switch c.Name {
	case "file_read":
		if ns := numberedRe().FindAllStringSubmatch(out, -1); len(ns) > 0 {
			r := fmt.Sprintf("read lines %s-%s", ns[0][1], ns[len(ns)-1][1])
			if m := ofRe().FindStringSubmatch(out); m != nil {
				r += " of " + m[1]
			}
			return r
		}
		return "read"
	case "file_edit":
		var spans []string
		for _, m := range hunkRe().FindAllStringSubmatch(out, -1) {
			from, _ := strconv.Atoi(m[1])
			n := 1
			if m[2] != "" {
				n, _ = strconv.Atoi(m[2])
			}
			spans = append(spans, fmt.Sprintf("%d-%d", from, from+max(n, 1)-1))
		}
		if len(spans) > 0 {
			return "edited lines " + strings.Join(spans, ", ")
		}
		return "edited"
	case "file_write":
		return "written"
	case "file_list":
		return "listed"
	}
	return ""
}

// stripTrailer drops the shell tool's "[exit N · T]" line.
func stripTrailer(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 && strings.HasPrefix(s[i+1:], "[exit ") {
		return s[:i]
	}
	return s
}

// Engine is the engine's own draft, from facts alone: what the request
// in progress is, which files were touched and how, the last checks and
// their exit codes, the plan's open steps, and the pages worth recalling.
// It never asks for everything to be read again.
func Engine(f Facts) Draft {
	d := Draft{engine: true}
	if f.Request != "" {
		ref := ""
		if f.Ref != "" {
			ref = fmt.Sprintf(", %s in Decisions", f.Ref)
		}
		d.Task = fmt.Sprintf("The request in progress (turn %d%s): %s", f.Turn, ref, trimMiddle(strings.TrimSpace(f.Request), 900))
	} else {
		d.Task = "The user's message after this handoff is the request in progress."
	}
	for _, fl := range f.Files {
		d.Coordinates = append([]Coordinate{{File: fl.Path, Note: fl.Action}}, d.Coordinates...)
	}
	var v []string
	for _, c := range f.Checks {
		line := fmt.Sprintf("- `%s` → exit %s", c.Command, c.Exit)
		if c.Last != "" {
			line += ": " + c.Last
		}
		v = append(v, line)
	}
	d.Verification = strings.Join(v, "\n")
	var prog []string
	prog = append(prog, "godwit wrote this handoff from the session's record: the model's own was missing or empty.")
	var read, changed []string
	for _, fl := range f.Files {
		if strings.HasPrefix(fl.Action, "read") || fl.Action == "listed" {
			read = append(read, fl.Path)
		} else {
			changed = append(changed, fl.Path)
		}
	}
	if len(changed) > 0 {
		prog = append(prog, "Changed: "+strings.Join(changed, ", ")+".")
	}
	if len(read) > 0 {
		prog = append(prog, "Read: "+strings.Join(read, ", ")+".")
	}
	if len(f.Plan) > 0 {
		prog = append(prog, "Open plan steps:\n- "+strings.Join(f.Plan, "\n- "))
	}
	d.Progress = strings.Join(prog, "\n")
	switch {
	case len(f.Plan) > 0:
		d.Next = "Go on with the first open plan step: " + f.Plan[0]
	case len(f.Pages) > 0:
		d.Next = "Go on with the request in progress. What the last steps read is in the pages under References; recall one only if you need its text."
	default:
		d.Next = "Go on with the request in progress from where the coordinates and checks above leave it."
	}
	for _, p := range f.Pages {
		d.pages = append(d.pages, fmt.Sprintf("%s: %s", p.ID, p.What))
	}
	return d
}

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

// FromModel parses the handoff call's answer and judges it: a degenerate
// draft (missing, "ok", sections absent) gives way to the engine's own,
// built from facts; the model's proposals, supersessions and topics are
// kept either way, for the ledger rules to judge. It reports whether the
// model's draft stands.
func FromModel(text string, facts Facts) (Draft, bool) {
	d := Parse(text)
	if Degenerate(d) || hollow(d, facts) || mostlyCopied(text, facts.Outputs) {
		e := Engine(facts)
		e.Proposals, e.Supersede, e.Topics = d.Proposals, d.Supersede, d.Topics
		return e, false
	}
	return d, true
}

var digitRe = lazy(`\d`)

// hollow reports whether a draft names nothing the work is about: no
// path, name, code or number, and none of the request's own words ("I
// will continue the work as planned").
func hollow(d Draft, f Facts) bool {
	text := strings.Join([]string{d.Task, d.Progress, d.Next, d.Verification}, "\n")
	for _, c := range d.Coordinates {
		text += "\n" + c.String()
	}
	if len(subjectOf(text).keys) > 0 || digitRe().MatchString(text) {
		return false
	}
	return f.Request == "" || !SameSubject(text, f.Request)
}

// mostlyCopied reports whether most lines of a draft repeat a tool
// output: a model that pasted what it read instead of writing a handoff.
func mostlyCopied(text string, outputs []string) bool {
	lines, copiedLines := 0, 0
	all := strings.Join(outputs, "\n")
	for _, l := range strings.Split(text, "\n") {
		if len(strings.Fields(l)) < 4 || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		lines++
		if strings.Contains(all, strings.TrimSpace(l)) || copied(l, outputs) {
			copiedLines++
		}
	}
	return lines > 0 && copiedLines*2 > lines
}

// Pages are the page references the engine's draft names, for the
// References section.
func (d Draft) Pages() []string { return d.pages }

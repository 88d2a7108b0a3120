package eval

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// rule is a compiled Rule.
type rule struct {
	when       *cond
	unless     *cond
	say, think *tmpl
	calls      []call
	handoff    *handoffTmpl
	fail       *tmpl
}

type call struct {
	tool string
	args any // strings holding actions compiled to *tmpl
}

// tdata is what templates see.
type tdata struct {
	// Turn is the task's turn, 1-based.
	Turn int
	// User is the newest message the user wrote; Output the last tool
	// result.
	User, Output string
	// Match holds the submatches of the rule's user, engine or output
	// regexp.
	Match []string
	// Entry is the ref of the ledger entry an each line is written for.
	Entry string
}

func compileRule(r Rule, funcs tfuncs) (rule, error) {
	var out rule
	var errs []error
	var err error
	out.when, err = compileWhen(r.When)
	errs = append(errs, err)
	if r.Unless != nil {
		out.unless, err = compileWhen(*r.Unless)
		errs = append(errs, err)
	}
	parse := func(name, text string) *tmpl {
		if text == "" {
			return nil
		}
		t, err := parseTmpl(name, text, funcs)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
		return t
	}
	out.say, out.think, out.fail = parse("say", r.Say), parse("think", r.Think), parse("fail", r.Fail)
	for _, c := range r.Call {
		if c.Tool == "" {
			errs = append(errs, errors.New("call: empty tool name"))
			continue
		}
		args, _ := mapArgs(c.Args, func(x any) (any, error) {
			if s, ok := x.(string); ok && strings.Contains(s, "{{") {
				return parse("call "+c.Tool, s), nil
			}
			return x, nil
		})
		out.calls = append(out.calls, call{tool: c.Tool, args: args})
	}
	if h := r.Handoff; h != nil {
		ht := &handoffTmpl{
			task: parse("handoff.task", h.Task), verification: parse("handoff.verification", h.Verification),
			progress: parse("handoff.progress", h.Progress), next: parse("handoff.next", h.Next),
		}
		for _, c := range h.Coordinates {
			ht.coordinates = append(ht.coordinates, parse("handoff.coordinates", c))
		}
		for _, d := range h.Decisions {
			if d.Line == "" {
				errs = append(errs, errors.New("handoff.decisions: a line is empty; write e.g. '~ {{ref \"old rule\"}} by {{ref \"new rule\"}}'"))
				continue
			}
			dl := decisionTmpl{line: parse("handoff.decisions", d.Line)}
			if d.Each != "" {
				if dl.each, err = regexp.Compile(d.Each); err != nil {
					errs = append(errs, fmt.Errorf("handoff.decisions each: %w", err))
				}
			}
			ht.decisions = append(ht.decisions, dl)
		}
		out.handoff = ht
	}
	actions := 0
	for _, set := range []bool{r.Say != "" || r.Think != "" || len(r.Call) > 0, r.Handoff != nil, r.Fail != ""} {
		if set {
			actions++
		}
	}
	switch {
	case actions == 0:
		errs = append(errs, errors.New("no action: give say (and/or think, call), handoff, or fail"))
	case actions > 1:
		errs = append(errs, errors.New("more than one kind of action: a rule either answers (say, think, call), writes a handoff, or fails"))
	case r.Handoff != nil && !r.When.Handoff:
		errs = append(errs, errors.New("writes a handoff but its when lacks handoff: true"))
	case r.When.Handoff && len(r.Call) > 0:
		errs = append(errs, errors.New("calls tools in answer to the handoff instruction, which says not to; write a handoff"))
	}
	return out, errors.Join(errs...)
}

// mapArgs rebuilds a tool call's arguments with leaf applied to every
// value that is not a map or a list: at compile time it turns each string
// holding an action into its *tmpl, at run time renders those.
func mapArgs(v any, leaf func(any) (any, error)) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			r, err := mapArgs(e, leaf)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := mapArgs(e, leaf)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return leaf(v)
}

// renderArgs renders compiled arguments over d.
func renderArgs(v any, d tdata) (any, error) {
	return mapArgs(v, func(x any) (any, error) {
		if t, ok := x.(*tmpl); ok {
			return t.execute(d)
		}
		return x, nil
	})
}

type handoffTmpl struct {
	task, verification, progress, next *tmpl
	coordinates                        []*tmpl
	decisions                          []decisionTmpl
}

type decisionTmpl struct {
	line *tmpl
	each *regexp.Regexp
}

// render writes the handoff in the engine's headings. A decisions line
// whose {{ref}} finds nothing is left out.
func (h *handoffTmpl) render(v *view, d tdata) (string, error) {
	var b strings.Builder
	section := func(head string, body string) {
		if strings.TrimSpace(body) == "" {
			body = "none"
		}
		fmt.Fprintf(&b, "## %s\n%s\n", head, strings.TrimSpace(body))
	}
	one := func(t *tmpl) (string, error) { return t.execute(d) }
	task, err := one(h.task)
	if err != nil {
		return "", err
	}
	section("Current task", task)
	var coords []string
	for _, t := range h.coordinates {
		s, err := one(t)
		if err != nil {
			return "", err
		}
		coords = append(coords, "- "+strings.TrimPrefix(s, "- "))
	}
	section("Coordinates", strings.Join(coords, "\n"))
	for _, p := range []struct {
		head string
		t    *tmpl
	}{{"Verification", h.verification}, {"Progress and blockers", h.progress}, {"Next step", h.next}} {
		s, err := one(p.t)
		if err != nil {
			return "", err
		}
		section(p.head, s)
	}
	var lines []string
	for _, dl := range h.decisions {
		ds := []tdata{d}
		if dl.each != nil {
			ds = nil
			for _, e := range v.ledger() {
				if m := dl.each.FindStringSubmatch(e.Text); m != nil && e.SupersededBy == 0 {
					ds = append(ds, tdata{Turn: d.Turn, User: d.User, Output: d.Output, Match: m, Entry: e.Ref()})
				}
			}
		}
		for _, dd := range ds {
			s, err := dl.line.execute(dd)
			switch {
			case errors.Is(err, errNoRef):
				continue
			case err != nil:
				return "", err
			}
			lines = append(lines, s)
		}
	}
	fmt.Fprintf(&b, "## Decisions\n%s\n", strings.Join(lines, "\n"))
	return b.String(), nil
}

// firstLines is the template function {{lines 3 .Output}}.
func firstLines(n int, s string) string {
	ls := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, "\n")
}

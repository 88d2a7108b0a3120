package eval

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/template/parse"
)

// tmpl is a scripted model's string with {{actions}}: the small subset of
// Go's text/template syntax that task files use. Each action is one
// operand (.Turn, .User, .Output, .Match, .Entry, a quoted string, an
// integer) or one function applied to operands: index, printf, ref,
// lines.
//
// text/template/parse parses it; it is not executed by text/template
// because that calls reflect's MethodByName, after which the linker keeps
// every exported method of every type: the stripped godwit binary grows
// from 26.7 to 29.8 MB.
type tmpl struct {
	name  string
	parts []tpart
	f     tfuncs
}

// tpart is literal text or an action.
type tpart struct {
	text string
	fn   string // "" for a lone operand
	args []toperand
}

type toperand struct {
	field string // "Turn", "User", ...; "" for a literal
	lit   any    // string or int
}

// tfuncs are the functions a template can call, bound per brain.
type tfuncs struct {
	ref func(text string) (string, error)
}

var tfields = map[string]bool{"Turn": true, "User": true, "Output": true, "Match": true, "Entry": true}

// arity is each function's operand count; -1 is at least one.
var arity = map[string]int{"index": 2, "printf": -1, "ref": 1, "lines": 2}

// parseTmpl compiles text, accepting only the subset above.
func parseTmpl(name, text string, f tfuncs) (*tmpl, error) {
	tree := parse.New(name)
	tree.Mode = parse.SkipFuncCheck // unknown functions get our message
	if _, err := tree.Parse(text, "", "", map[string]*parse.Tree{}); err != nil {
		return nil, err
	}
	t := &tmpl{name: name, f: f}
	for _, n := range tree.Root.Nodes {
		switch n := n.(type) {
		case *parse.TextNode:
			t.parts = append(t.parts, tpart{text: string(n.Text)})
		case *parse.ActionNode:
			p, err := parseAction(n.Pipe)
			if err != nil {
				return nil, fmt.Errorf("template %s: %s: %w", name, n, err)
			}
			t.parts = append(t.parts, p)
		default:
			return nil, fmt.Errorf("template %s: %s: only actions such as {{.User}} or {{index .Match 1}} are supported", name, n)
		}
	}
	return t, nil
}

func parseAction(pipe *parse.PipeNode) (tpart, error) {
	if len(pipe.Decl) > 0 || len(pipe.Cmds) != 1 {
		return tpart{}, errors.New("variables and pipelines are not supported")
	}
	words := pipe.Cmds[0].Args
	var p tpart
	if id, ok := words[0].(*parse.IdentifierNode); ok {
		n, known := arity[id.Ident]
		if !known {
			return tpart{}, fmt.Errorf("unknown function %q; use index, printf, ref or lines", id.Ident)
		}
		p.fn = id.Ident
		words = words[1:]
		if (n >= 0 && len(words) != n) || len(words) == 0 {
			return tpart{}, fmt.Errorf("%s takes %s", p.fn, arityText(p.fn, n))
		}
	} else if len(words) != 1 {
		return tpart{}, fmt.Errorf("%s is not a function; use index, printf, ref or lines", words[0])
	}
	for _, w := range words {
		o, err := parseOperand(w)
		if err != nil {
			return tpart{}, err
		}
		p.args = append(p.args, o)
	}
	return p, nil
}

func arityText(fn string, n int) string {
	switch fn {
	case "index":
		return "a list and a number: {{index .Match 1}}"
	case "printf":
		return "a format and operands: {{printf \"%02d\" .Turn}}"
	case "ref":
		return "one quoted text: {{ref \"Rule:\"}}"
	case "lines":
		return "a count and a text: {{lines 3 .Output}}"
	}
	return strconv.Itoa(n) + " operands"
}

func parseOperand(w parse.Node) (toperand, error) {
	switch w := w.(type) {
	case *parse.FieldNode:
		if len(w.Ident) != 1 || !tfields[w.Ident[0]] {
			return toperand{}, fmt.Errorf("unknown field %s; use .Turn, .User, .Output, .Match or .Entry", w)
		}
		return toperand{field: w.Ident[0]}, nil
	case *parse.StringNode:
		return toperand{lit: w.Text}, nil
	case *parse.NumberNode:
		if w.IsInt {
			return toperand{lit: int(w.Int64)}, nil
		}
	}
	return toperand{}, fmt.Errorf("%q is not a field, a quoted string or a number", w.String())
}

// execute renders t over d. A nil template renders "".
func (t *tmpl) execute(d tdata) (string, error) {
	if t == nil {
		return "", nil
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.fn == "" && p.args == nil {
			b.WriteString(p.text)
			continue
		}
		v, err := p.eval(d, t.f)
		if err != nil {
			return "", fmt.Errorf("template %s: %w", t.name, err)
		}
		fmt.Fprint(&b, v)
	}
	return b.String(), nil
}

func (p tpart) eval(d tdata, f tfuncs) (any, error) {
	args := make([]any, len(p.args))
	for i, o := range p.args {
		args[i] = o.value(d)
	}
	switch p.fn {
	case "":
		return args[0], nil
	case "printf":
		format, ok := args[0].(string)
		if !ok {
			return nil, errors.New("printf: the format must be a string")
		}
		return fmt.Sprintf(format, args[1:]...), nil
	case "index":
		list, ok := args[0].([]string)
		n, ok2 := args[1].(int)
		if !ok || !ok2 {
			return nil, errors.New("index: takes a list (.Match) and a number")
		}
		if n < 0 || n >= len(list) {
			return nil, fmt.Errorf("index %d out of range: the match has %d groups", n, len(list))
		}
		return list[n], nil
	case "lines":
		n, ok := args[0].(int)
		s, ok2 := args[1].(string)
		if !ok || !ok2 {
			return nil, errors.New("lines: takes a number and a text")
		}
		return firstLines(n, s), nil
	case "ref":
		s, ok := args[0].(string)
		if !ok {
			return nil, errors.New("ref: takes a quoted text")
		}
		if f.ref == nil {
			return nil, errNoRef
		}
		return f.ref(s)
	}
	return nil, fmt.Errorf("unknown function %q", p.fn)
}

func (o toperand) value(d tdata) any {
	switch o.field {
	case "Turn":
		return d.Turn
	case "User":
		return d.User
	case "Output":
		return d.Output
	case "Match":
		return d.Match
	case "Entry":
		return d.Entry
	}
	return o.lit
}

package eval

import (
	"errors"
	"strings"
	"testing"
)

func TestTmpl(t *testing.T) {
	t.Parallel()
	d := tdata{Turn: 3, User: "fix it", Output: "a\nb\nc\nd", Match: []string{"all", "x.go", "y.go"}, Entry: "D2"}
	f := tfuncs{ref: func(s string) (string, error) {
		if s == "Rule:" {
			return "D1", nil
		}
		return "", errNoRef
	}}
	tests := []struct {
		in, want string
	}{
		{"plain text", "plain text"},
		{"", ""},
		{"Reading {{index .Match 1}}.", "Reading x.go."},
		{"{{.Turn}}/{{.User}}/{{.Entry}}", "3/fix it/D2"},
		{`notes/big{{printf "%02d" .Turn}}.txt`, "notes/big03.txt"},
		{"{{lines 2 .Output}}", "a\nb"},
		{"{{ lines 9 .Output }}", "a\nb\nc\nd"},
		{`~ {{ref "Rule:"}} by {{.Entry}}`, "~ D1 by D2"},
		{"{{printf `%s-%d` .User .Turn}}", "fix it-3"},
		{`{{printf "a b" }}`, "a b"},
		{"{{.Match}}", "[all x.go y.go]"},
		{"{ not an action }", "{ not an action }"},
	}
	for _, tc := range tests {
		tp, err := parseTmpl("t", tc.in, f)
		if err != nil {
			t.Errorf("parse %q: %v", tc.in, err)
			continue
		}
		got, err := tp.execute(d)
		if err != nil || got != tc.want {
			t.Errorf("%q = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestTmplErrors(t *testing.T) {
	t.Parallel()
	parse := []struct{ in, want string }{
		{"{{.Nope", "unclosed action"},
		{"{{.Nope}}", "unknown field .Nope"},
		{"{{}}", "missing value for command"},
		{"{{upper .User}}", `unknown function "upper"`},
		{"{{index .Match}}", "index takes a list and a number"},
		{"{{lines 3}}", "lines takes a count and a text"},
		{`{{ref "open}}`, "unterminated quoted string"},
		{"{{index .Match one}}", `"one" is not a field`},
	}
	for _, tc := range parse {
		_, err := parseTmpl("t", tc.in, tfuncs{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parse %q: err %v, want it to say %q", tc.in, err, tc.want)
		}
	}
	run := []struct{ in, want string }{
		{"{{index .Match 5}}", "index 5 out of range"},
		{"{{index .User 1}}", "index: takes a list"},
		{"{{printf .Turn}}", "format must be a string"},
		{"{{lines .User .Output}}", "lines: takes a number"},
	}
	for _, tc := range run {
		tp, err := parseTmpl("t", tc.in, tfuncs{})
		if err != nil {
			t.Fatalf("parse %q: %v", tc.in, err)
		}
		if _, err := tp.execute(tdata{Match: []string{"a"}}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("execute %q: err %v, want it to say %q", tc.in, err, tc.want)
		}
	}
	tp, _ := parseTmpl("t", `{{ref "x"}}`, tfuncs{})
	if _, err := tp.execute(tdata{}); !errors.Is(err, errNoRef) {
		t.Errorf("ref without a ledger: %v, want errNoRef", err)
	}
}

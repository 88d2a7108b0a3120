package layering

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree writes files (path -> source) under a new root, after a copy of
// the real agent package's non-test files, so each planted file sits in
// a package that passes on its own.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	real, err := filepath.Glob("../agent/*.go")
	if err != nil || len(real) == 0 {
		t.Fatalf("no agent package to copy: %v", err)
	}
	if err := os.Mkdir(filepath.Join(root, "agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range real {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "agent", filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, src := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestPlantedViolationsFail plants one violation (or a look-alike that is
// none) at a time next to a copy of the agent package, and checks that
// the checks report exactly what they should: each rule can fail.
func TestPlantedViolationsFail(t *testing.T) {
	t.Parallel()
	agentRow := map[string]rule{"agent": allowed["internal/agent"]}
	for _, tc := range []struct {
		name    string
		files   map[string]string
		table   map[string]rule // nil: only agent's real row
		excused excuses
		want    []string // each a substring of one problem, in check's order
	}{
		{name: "the copy alone passes"},
		{
			name:  "cobra",
			files: map[string]string{"agent/planted.go": "package agent\n\nimport _ \"github.com/spf13/cobra\"\n"},
			want:  []string{"agent/planted.go:3: core package agent imports github.com/spf13/cobra: commands are internal/cli's"},
		},
		{
			name: "bubbletea, lipgloss, bubbles, charmbracelet, x/term",
			files: map[string]string{"agent/planted.go": `package agent

import (
	_ "charm.land/bubbles/v2/textarea"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/lipgloss/v2"
	_ "github.com/charmbracelet/x/ansi"
	_ "golang.org/x/term"
)
`},
			want: []string{
				"planted.go:4: core package agent imports charm.land/bubbles/v2/textarea: terminal UI",
				"planted.go:5: core package agent imports charm.land/bubbletea/v2: terminal UI",
				"planted.go:6: core package agent imports charm.land/lipgloss/v2: terminal UI",
				"planted.go:7: core package agent imports github.com/charmbracelet/x/ansi: terminal UI",
				"planted.go:8: core package agent imports golang.org/x/term: the terminal is a front end's",
			},
		},
		{
			name:  "flag, log and testing",
			files: map[string]string{"agent/planted.go": "package agent\n\nimport (\n\t_ \"flag\"\n\t\"log\"\n\t_ \"testing\"\n)\n\nfunc planted() { log.Printf(\"x\") }\n"},
			want: []string{
				"planted.go:4: core package agent imports flag: the command line",
				"planted.go:5: core package agent imports log: the standard logger",
				"planted.go:6: core package agent imports testing: only test harnesses",
			},
		},
		{
			name:  "fmt.Println and println",
			files: map[string]string{"agent/planted.go": "package agent\n\nimport \"fmt\"\n\nfunc planted() {\n\tfmt.Println(\"hi\")\n\tprintln(\"hi\")\n}\n"},
			want: []string{
				"planted.go:6: core package agent uses fmt.Println: prints to stdout",
				"planted.go:7: core package agent uses println: the builtin",
			},
		},
		{
			name:  "an aliased fmt",
			files: map[string]string{"agent/planted.go": "package agent\n\nimport f \"fmt\"\n\nfunc planted() { f.Printf(\"hi\") }\n"},
			want:  []string{"planted.go:5: core package agent uses fmt.Printf"},
		},
		{
			name:  "os.Stderr and os.Stdout as writers",
			files: map[string]string{"agent/planted.go": "package agent\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\t\"os\"\n)\n\nvar out io.Writer = os.Stdout\n\nfunc planted() { fmt.Fprintln(os.Stderr, \"x\") }\n"},
			want: []string{
				"planted.go:11: core package agent uses os.Stderr: stderr is the front end's",
				"planted.go:9: core package agent uses os.Stdout: stdout is the front end's",
			},
		},
		{
			name: "look-alikes that write nowhere",
			files: map[string]string{"agent/planted.go": `package agent

import (
	"fmt"
	"io"
	"log/slog"
	"os"
)

// A comment may say fmt.Println(os.Stdout) and println.
type streams struct{ Stdout, Stderr io.Writer }

func planted(w io.Writer, os streams) {
	fmt.Fprintf(w, "fmt.Println")
	fmt.Fprintln(os.Stdout, "a field, not the package")
	slog.Info("slog is how the core logs")
}

var _ = os.Getenv
`, "agent/own.go": "package agent\n\nfunc print(string) {}\n\nfunc own() { print(\"the package's own print\") }\n"},
		},
		{
			name:  "a front end and a program may print",
			files: map[string]string{"internal/cli/x.go": "package cli\n\nimport (\n\t\"fmt\"\n\t_ \"github.com/spf13/cobra\"\n)\n\nfunc x() { fmt.Println() }\n", "cmd/x/main.go": "package main\n\nimport (\n\t\"fmt\"\n\t\"log\"\n\t\"os\"\n)\n\nfunc main() { fmt.Println(); log.Print(); _ = os.Stdout }\n"},
			table: map[string]rule{"agent": allowed["internal/agent"], "internal/cli": {nil, "planted"}, "cmd/x": {nil, "planted"}},
		},
		{
			name:  "a godwit import the layer does not allow",
			files: map[string]string{"agent/planted.go": "package agent\n\nimport _ \"github.com/godwit/godwit/internal/cli\"\n"},
			want:  []string{"agent/planted.go:3: agent imports internal/cli, which its layer does not allow"},
		},
		{
			name:  "a package missing from the table",
			files: map[string]string{"agent/sub/x.go": "package sub\n"},
			want:  []string{"package agent/sub is not in the layering table"},
		},
		{
			name:  "a stale allowance",
			table: map[string]rule{"agent": {append([]string{"policy"}, allowed["internal/agent"].imports...), "planted"}},
			want:  []string{"lets agent import policy, which it imports nowhere"},
		},
		{
			name:  "a table row for a package that is gone",
			table: map[string]rule{"agent": allowed["internal/agent"], "gone": {nil, "planted"}},
			want:  []string{"the layering table names gone, which does not exist"},
		},
		{
			name:    "an excuse used",
			files:   map[string]string{"agent/planted.go": "package agent\n\nimport \"os\"\n\nvar _ = os.Stderr\n"},
			excused: excuses{"agent": {"os.Stderr": "planted"}},
		},
		{
			name:    "an excuse no longer needed",
			excused: excuses{"agent": {"os.Stderr": "planted"}},
			want:    []string{"agent is excused from os.Stderr, which it no longer uses"},
		},
		{
			name:    "an excuse for a front end",
			files:   map[string]string{"internal/tui/x.go": "package tui\n"},
			table:   map[string]rule{"agent": allowed["internal/agent"], "internal/tui": {nil, "planted"}},
			excused: excuses{"internal/tui": {"os.Stderr": "planted"}},
			want:    []string{"internal/tui is excused from core rules but is a front end"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := tree(t, tc.files)
			pkgs, err := scan(root)
			if err != nil {
				t.Fatal(err)
			}
			table := tc.table
			if table == nil {
				table = agentRow
			}
			got := check(root, pkgs, table, tc.excused)
			ok := len(got) == len(tc.want)
			for i := 0; ok && i < len(got); i++ {
				ok = strings.Contains(got[i], tc.want[i])
			}
			if !ok {
				t.Errorf("problems:\n  %s\nwant, in order:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// TestPlantedDocClaimsFail checks that docClaims bites: a package doc
// whose import sentence is missing, doubled, wrong, or joined by an
// unchecked claim about imports fails; the true sentence passes.
func TestPlantedDocClaimsFail(t *testing.T) {
	t.Parallel()
	table := map[string]rule{"a": {[]string{"llm", "tool"}, ""}, "b": {nil, ""}}
	for _, tc := range []struct {
		name, doc string
		pkg       string
		want      string // a substring of the one problem; "" for none
	}{
		{"true", "Package a runs.\n\nOf godwit's packages it imports only tool and llm.\n", "a", ""},
		{"none", "Package b is a leaf.\nIt imports none of godwit's\npackages.\n", "b", ""},
		{"code lines are not prose", "Package b is a leaf.\n\n\timport \"b\"\n\nIt imports none of godwit's packages.\n", "b", ""},
		{"missing", "Package a runs.\n", "a", "0 times"},
		{"twice", "Of godwit's packages it imports only llm and tool. Of godwit's packages it imports only llm and tool.", "a", "2 times"},
		{"wrong list", "Of godwit's packages it imports only llm.", "a", "says it imports [llm]"},
		{"none, but it does", "It imports none of godwit's packages.", "a", "says it imports []"},
		{"an unchecked claim", "Of godwit's packages it imports only llm and tool. It must not import window.", "a", "outside its checked sentence"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := docClaims(map[string]*facts{tc.pkg: {name: tc.pkg, doc: tc.doc}}, table)
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("want no problem, got %q", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("want one problem holding %q, got %q", tc.want, got)
			}
		})
	}
}

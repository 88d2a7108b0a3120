package goldentest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what a check reported.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Name() string              { return "TestX/sub" }
func (r *recorder) Errorf(f string, a ...any) { r.errs = append(r.errs, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatalf(f string, a ...any) { r.errs = append(r.errs, fmt.Sprintf(f, a...)) }

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pkg", "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pkg", "testdata", "a.golden"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(dir, "pkg"))

	for _, tc := range []struct {
		name, file, got string
		update          bool
		want            []string // in the one report; none: it passes
	}{
		{name: "equal", file: "a.golden", got: "one\ntwo\n"},
		{name: "differs", file: "a.golden", got: "one\nTWO\n", want: []string{
			"testdata/a.golden differs from the output", "`go test ./pkg -run '^TestX$' -update`", "@@ line 2 @@\n-\"two\"\n+\"TWO\""}},
		{name: "missing", file: "b.golden", got: "x", want: []string{"no such file", "to create it, run `go test ./pkg -run '^TestX$' -update`"}},
		{name: "update writes", file: "sub/c.golden", got: "new\n", update: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			*update = tc.update
			defer func() { *update = false }()
			r := &recorder{TB: t}
			Check(r, tc.file, []byte(tc.got))
			if len(tc.want) == 0 && len(r.errs) > 0 {
				t.Errorf("Check reported %q", r.errs)
			}
			if len(tc.want) > 0 {
				if len(r.errs) != 1 {
					t.Fatalf("Check reported %q, want one report", r.errs)
				}
				for _, w := range tc.want {
					if !strings.Contains(r.errs[0], w) {
						t.Errorf("report lacks %q:\n%s", w, r.errs[0])
					}
				}
			}
			if tc.update {
				if b, err := os.ReadFile(filepath.Join("testdata", tc.file)); err != nil || string(b) != tc.got {
					t.Errorf("under -update the file holds %q, %v", b, err)
				}
			}
		})
	}
}

package ignore

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRules(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	root := Read(write("root", "# a comment\n\n*.log\r\nbuild/\n!keep.log\n"), nil)
	sub := Read(write("sub", "*.tmp\n/only-here\n"), []string{"pkg"})
	if len(root) != 3 || len(sub) != 2 {
		t.Fatalf("read %d and %d patterns, want 3 and 2", len(root), len(sub))
	}
	if Read(filepath.Join(dir, "missing"), nil) != nil {
		t.Error("a missing file has patterns")
	}
	rules := root.Then(sub)
	for _, tc := range []struct {
		path  []string
		isDir bool
		want  bool
	}{
		{[]string{"a.log"}, false, true}, // CRLF line still matches
		{[]string{"keep.log"}, false, false},
		{[]string{"build"}, true, true},
		{[]string{"build"}, false, false}, // dir-only
		{[]string{"pkg", "x.tmp"}, false, true},
		{[]string{"x.tmp"}, false, false}, // outside the sub file's domain
		{[]string{"pkg", "only-here"}, false, true},
		{[]string{"pkg", "deeper", "only-here"}, false, false}, // anchored
		{[]string{"main.go"}, false, false},
	} {
		if got := rules.Ignored(tc.path, tc.isDir); got != tc.want {
			t.Errorf("Ignored(%v, %v) = %v, want %v", tc.path, tc.isDir, got, tc.want)
		}
	}
	// Then must leave the shared rules as they were for a sibling.
	sibling := root.Then(Read(write("sib", "*.go\n"), []string{"other"}))
	_ = sibling
	if rules.Ignored([]string{"other", "x.go"}, false) {
		t.Error("a sibling's pattern leaked into rules built before it")
	}
	var none Rules
	if none.Ignored([]string{"a"}, false) {
		t.Error("no rules ignored a path")
	}
}

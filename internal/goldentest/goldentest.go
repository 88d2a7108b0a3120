// Package goldentest is the one -update convention of godwit's golden
// tests: Check compares a test's output with a file in the package's
// testdata, and `go test ./pkg -run TestX -update` rewrites the file from
// the output instead, for review in the diff. A failure shows the lines
// that differ and that command. Only tests use it.
//
// It imports none of godwit's packages.
package goldentest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update is the flag every golden test shares: one name, one meaning.
var update = flag.Bool("update", false, "rewrite the golden files in testdata from the current output")

// Check compares got with testdata/name. Under -update it writes got
// there (creating testdata) and passes.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(name))
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: to create it, run %s", err, command(t))
		return // for a testing.TB whose Fatalf returns
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output; if the change is right, run %s and review the diff:\n%s", path, command(t), diff(path, string(want), string(got)))
	}
}

// command is the go test command that rewrites this test's golden files,
// run from the module's root.
func command(t testing.TB) string {
	pkg := "."
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				if rel, err := filepath.Rel(dir, wd); err == nil && rel != "." {
					pkg = "./" + filepath.ToSlash(rel)
				}
				break
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	top, _, _ := strings.Cut(t.Name(), "/")
	return fmt.Sprintf("`go test %s -run '^%s$' -update`", pkg, top)
}

// maxHunks bounds the diff a failure prints.
const maxHunks = 20

// diff lists the lines that differ, position by position: golden files
// are small, and a change is read in review, not here.
func diff(path, want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s (golden)\n+++ %s (output)\n", path, path)
	hunks := 0
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x == y {
			continue
		}
		if hunks++; hunks > maxHunks {
			fmt.Fprintf(&out, "... and more\n")
			break
		}
		fmt.Fprintf(&out, "@@ line %d @@\n-%q\n+%q\n", i+1, x, y)
	}
	return out.String()
}

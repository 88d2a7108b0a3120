package layering

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The test command runs the race detector on every package but those
// listed in .ci/no-race, which it tests without: there the detector only
// slows a single goroutine 10-20x (handoff's tests: 25 CPU-s against 1.3).
// A listed package must stay one goroutine, tests included, or the
// detector would have something to find.
const noRaceList = "../../.ci/no-race"

// concurrency returns where the Go files in dir start or share work
// between goroutines: a go statement, a channel, select, a lock, a wait
// group, sync/atomic or t.Parallel. sync.Once and its kin are allowed:
// they make lazy package state safe to read, and race nothing in one
// goroutine.
func concurrency(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var found []string
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			what := ""
			switch n := n.(type) {
			case *ast.GoStmt:
				what = "a go statement"
			case *ast.ChanType:
				what = "a channel"
			case *ast.SelectStmt:
				what = "select"
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok {
					switch {
					case x.Name == "atomic":
						what = "sync/atomic"
					case x.Name == "sync" && !strings.HasPrefix(n.Sel.Name, "Once"):
						what = "sync." + n.Sel.Name
					}
				}
				if n.Sel.Name == "Parallel" {
					what = "t.Parallel"
				}
			}
			if what != "" {
				found = append(found, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), what))
			}
			return true
		})
	}
	return found, nil
}

func TestNoRacePackagesRunOneGoroutine(t *testing.T) {
	f, err := os.Open(noRaceList)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const module = "github.com/godwit/godwit/"
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		pkg := strings.TrimSpace(sc.Text())
		if pkg == "" {
			continue
		}
		n++
		rel, ok := strings.CutPrefix(pkg, module)
		if !ok {
			t.Errorf("%s: %q is not a package of %s", noRaceList, pkg, module)
			continue
		}
		found, err := concurrency(filepath.Join("../..", rel))
		if err != nil {
			t.Errorf("%s: %v", pkg, err)
		}
		for _, w := range found {
			t.Errorf("%s is tested without the race detector (.ci/no-race) but has %s; take it off the list", pkg, w)
		}
	}
	if n == 0 {
		t.Fatalf("%s lists no package; has its format changed?", noRaceList)
	}
}

func TestConcurrencyIsFound(t *testing.T) {
	for _, src := range []string{
		"func f() { go f() }",
		"var c chan int",
		"var mu sync.Mutex",
		"func f(t *testing.T) { t.Parallel() }",
		"var n atomic.Int64",
		"func f() { select {} }",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"+src+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if found, err := concurrency(dir); err != nil || len(found) == 0 {
			t.Errorf("%q: found %v, %v; want it found", src, found, err)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\nvar v = sync.OnceValue(func() int { return 1 })\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if found, _ := concurrency(dir); len(found) != 0 {
		t.Errorf("sync.OnceValue found as concurrency: %v", found)
	}
}

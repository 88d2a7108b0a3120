package store

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestStatementsLiveInQueriesGo keeps docs/architecture.md's claim true:
// every SQL statement the store runs is a constant in queries.go, except
// the connection's PRAGMAs and the schema steps (store.go).
func TestStatementsLiveInQueriesGo(t *testing.T) {
	t.Parallel()
	elsewhere := map[string]bool{"queries.go": true}
	sql := regexp.MustCompile(`^\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE|WITH|CREATE|DROP|ALTER)\b`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || elsewhere[name] {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !sql.MatchString(s) {
				return true
			}
			t.Errorf("%s: an SQL statement outside queries.go: %.60q; make it a constant there", fset.Position(lit.Pos()), s)
			return true
		})
	}
}

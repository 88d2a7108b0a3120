package layering

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The core is every package but the front ends below and the programs
// (package main). A core package runs under every front end: the CLI,
// the chat, an editor over ACP, an embedder's program through the SDK.
// So it draws no terminal UI, parses no command line and writes nothing
// to the process's stdout or stderr (over ACP, stdout is the protocol);
// it logs with a *slog.Logger it is given.
var fronts = map[string]string{
	"internal/cli": "the commands: flags, the terminal, stdout and stderr are theirs",
	"internal/tui": "the chat's terminal UI",
}

// importBans are the imports no core package's non-test files may have,
// each with its reason. A path is a Go package pattern: "x/..." is x and
// every package under it.
var importBans = []struct{ pattern, why string }{
	{"github.com/spf13/cobra/...", "commands are internal/cli's"},
	{"github.com/spf13/pflag/...", "flags are internal/cli's"},
	{"flag", "the command line is the program's; a core package reading it breaks every other front end"},
	{"charm.land/...", "terminal UI is internal/tui's"},
	{"github.com/charmbracelet/...", "terminal UI is internal/tui's"},
	{"golang.org/x/term/...", "the terminal is a front end's; an editor over ACP or an embedder has none"},
	{"github.com/mattn/go-isatty/...", "the terminal is a front end's; an editor over ACP or an embedder has none"},
	{"log", "the standard logger writes to the process's stderr; log with the *slog.Logger you are given"},
	{"testing", "only test harnesses, packages named like net/http/httptest (llmtest, storetest, peertest, goldentest), link the testing package"},
}

// writeBans are the writes to the process's stdout or stderr no core
// package's non-test files may make, found in the syntax tree: a call of
// fmt.Print, Printf or Println, any use of os.Stdout or os.Stderr (passing
// one as an io.Writer writes there too), and the print and println
// builtins.
var writeBans = map[string]string{
	"fmt.Print":   "prints to stdout; write to an io.Writer you are given",
	"fmt.Printf":  "prints to stdout; write to an io.Writer you are given",
	"fmt.Println": "prints to stdout; write to an io.Writer you are given",
	"os.Stdout":   "stdout is the front end's (over ACP it is the protocol); take an io.Writer",
	"os.Stderr":   "stderr is the front end's; take an io.Writer, or log with slog",
	"print":       "the builtin writes to stderr; log with slog",
	"println":     "the builtin writes to stderr; log with slog",
}

// excused lists, per core package, the bans it is excused from (an import
// pattern of importBans or a write of writeBans) and why. An excuse the
// package no longer needs fails the test.
var excused = excuses{
	"internal/sandbox": {
		"os.Stderr": "the re-exec child (MaybeRunChild) is a process of its own until it execs the command: its stderr is the command's, which the model reads",
		"os.Stdout": "the GOCACHEPROG child (__godwit_gocache) is a process of its own: stdout is its protocol with the go command",
	},
	"internal/tool/shell": {"os.Stderr": "the supervisor (MaybeSupervise) is a process of its own between godwit and the command: its stderr is the command's, which the model reads"},
	"internal/goldentest": {"flag": "a harness: it registers -update on the test binary's command line"},
}

// facts is what the checks need from one package's non-test files.
type facts struct {
	name    string              // the package clause
	doc     string              // the package doc comment, every file's
	imports map[string][]string // every import path -> where, "file:line"
	writes  map[string][]string // a writeBans key -> where
}

// scan reads the non-test Go files of every package under root, parsed
// whole (not grepped), so an aliased import, a shadowed name or a
// comment tells apart. Build constraints are ignored on purpose: every
// platform's files count.
func scan(root string) (map[string]*facts, error) {
	type file struct {
		pkg  string
		ast  *ast.File
		path string
	}
	fset := token.NewFileSet()
	var files []file
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments) // with object resolution: it tells locals from packages
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(p))
		rel, _ := filepath.Rel(root, p)
		files = append(files, file{pkg: filepath.ToSlash(dir), ast: f, path: filepath.ToSlash(rel)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Names declared at package level in any file: a package may declare
	// its own print, which is then no builtin.
	declared := map[string]map[string]bool{}
	for _, f := range files {
		if declared[f.pkg] == nil {
			declared[f.pkg] = map[string]bool{}
		}
		for _, d := range f.ast.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declared[f.pkg][d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							declared[f.pkg][n.Name] = true
						}
					case *ast.TypeSpec:
						declared[f.pkg][s.Name.Name] = true
					}
				}
			}
		}
	}
	pkgs := map[string]*facts{}
	for _, f := range files {
		fa := pkgs[f.pkg]
		if fa == nil {
			fa = &facts{name: f.ast.Name.Name, imports: map[string][]string{}, writes: map[string][]string{}}
			pkgs[f.pkg] = fa
		}
		if f.ast.Doc != nil {
			fa.doc += f.ast.Doc.Text()
		}
		at := func(n ast.Node) string { return fmt.Sprintf("%s:%d", f.path, fset.Position(n.Pos()).Line) }
		local := map[string]string{} // the name fmt and os have in this file
		for _, imp := range f.ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			fa.imports[path] = append(fa.imports[path], at(imp))
			name := filepath.Base(path)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			if path == "fmt" || path == "os" {
				local[name] = path
			}
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				// A package name is never resolved to an object; a local
				// variable named os or fmt is.
				x, ok := n.X.(*ast.Ident)
				if !ok || x.Obj != nil || local[x.Name] == "" {
					return true
				}
				key := local[x.Name] + "." + n.Sel.Name
				if _, banned := writeBans[key]; banned {
					fa.writes[key] = append(fa.writes[key], at(n))
				}
			case *ast.CallExpr:
				id, ok := n.Fun.(*ast.Ident)
				if ok && (id.Name == "print" || id.Name == "println") && id.Obj == nil && !declared[f.pkg][id.Name] {
					fa.writes[id.Name] = append(fa.writes[id.Name], at(n))
				}
			}
			return true
		})
	}
	return pkgs, nil
}

// matches reports whether path is pattern's package, or under it when
// pattern ends in "/...".
func matches(pattern, path string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

// rule is one package's row of the layering table.
type rule struct {
	imports []string
	why     string
}

// excuses maps a core package to the bans it is excused from, with why.
type excuses map[string]map[string]string

// check returns every broken rule, sorted: a package missing from the
// table, a godwit import its row does not allow, an allowance it no
// longer uses, a row naming a package that is gone, and in the core a
// banned import or write, or an excuse it no longer needs.
func check(root string, pkgs map[string]*facts, table map[string]rule, excused excuses) []string {
	var out []string
	for pkg, fa := range pkgs {
		row, ok := table[pkg]
		if !ok {
			out = append(out, fmt.Sprintf("package %s is not in the layering table: give it a place and a reason", pkg))
			continue
		}
		used := map[string]bool{}
		for path, where := range fa.imports {
			imp, ok := strings.CutPrefix(path, module)
			if !ok {
				if path == strings.TrimSuffix(module, "/") {
					imp = "."
				} else {
					continue
				}
			}
			used[imp] = true
			if !slices.Contains(row.imports, imp) {
				out = append(out, fmt.Sprintf("%s: %s imports %s, which its layer does not allow (%s)", where[0], pkg, imp, row.why))
			}
		}
		for _, imp := range row.imports {
			if !used[imp] {
				out = append(out, fmt.Sprintf("the layering table lets %s import %s, which it imports nowhere: drop the stale allowance", pkg, imp))
			}
		}
		if _, front := fronts[pkg]; front || fa.name == "main" {
			continue
		}
		mine := excused[pkg]
		needed := map[string]bool{}
		for path, where := range fa.imports {
			for _, b := range importBans {
				if !matches(b.pattern, path) || (path == "testing" && strings.HasSuffix(fa.name, "test")) {
					continue
				}
				if _, ok := mine[b.pattern]; ok {
					needed[b.pattern] = true
					continue
				}
				out = append(out, fmt.Sprintf("%s: core package %s imports %s: %s", where[0], pkg, path, b.why))
			}
		}
		for what, where := range fa.writes {
			if _, ok := mine[what]; ok {
				needed[what] = true
				continue
			}
			out = append(out, fmt.Sprintf("%s: core package %s uses %s: %s", where[0], pkg, what, writeBans[what]))
		}
		for what := range mine {
			if !needed[what] {
				out = append(out, fmt.Sprintf("%s is excused from %s, which it no longer uses: drop the excuse", pkg, what))
			}
		}
	}
	for pkg := range table {
		if _, err := os.Stat(filepath.Join(root, pkg)); err != nil {
			out = append(out, fmt.Sprintf("the layering table names %s, which does not exist: keep the table true", pkg))
		}
	}
	for pkg := range excused {
		if fa, ok := pkgs[pkg]; !ok || fa.name == "main" {
			out = append(out, fmt.Sprintf("%s is excused from core rules but is no core package here", pkg))
		} else if _, front := fronts[pkg]; front {
			out = append(out, fmt.Sprintf("%s is excused from core rules but is a front end", pkg))
		}
	}
	sort.Strings(out)
	return out
}

// importClaim is the one sentence a package doc says its godwit imports
// in: "Of godwit's packages it imports only llm and tool." or "It imports
// none of godwit's packages." docClaims checks it against the table.
var importClaim = regexp.MustCompile(`Of godwit's packages it imports only ([^.]+)\.|It imports none of godwit's packages\.`)

// importWord finds any other word about imports in a doc's prose.
var importWord = regexp.MustCompile(`(?i)\bimport(s|ed|ing)?\b`)

// docClaims returns every package doc (but programs') that does not say
// its godwit imports in importClaim's sentence exactly once, says a list
// other than the table's row, or talks of imports anywhere else, where
// no test would check it.
func docClaims(pkgs map[string]*facts, table map[string]rule) []string {
	var out []string
	for pkg, fa := range pkgs {
		row, ok := table[pkg]
		if !ok || fa.name == "main" {
			continue
		}
		var prose []string // the doc without its indented code lines
		for _, l := range strings.Split(fa.doc, "\n") {
			if !strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, " ") {
				prose = append(prose, l)
			}
		}
		doc := strings.Join(strings.Fields(strings.Join(prose, " ")), " ")
		claims := importClaim.FindAllStringSubmatch(doc, -1)
		if len(claims) != 1 {
			out = append(out, fmt.Sprintf("%s: the package doc says its godwit imports %d times; say it once: %q or %q", pkg, len(claims), "Of godwit's packages it imports only A, B and C.", "It imports none of godwit's packages."))
			continue
		}
		var says []string
		if list := claims[0][1]; list != "" {
			for _, f := range strings.Split(strings.ReplaceAll(list, " and ", ", "), ",") {
				says = append(says, strings.TrimSpace(f))
			}
		}
		want := slices.Clone(row.imports)
		slices.Sort(says)
		slices.Sort(want)
		if !slices.Equal(says, want) {
			out = append(out, fmt.Sprintf("%s: the package doc says it imports %v of godwit's packages; the layering table allows %v", pkg, says, want))
		}
		if rest := importClaim.ReplaceAllString(doc, ""); importWord.MatchString(rest) {
			out = append(out, fmt.Sprintf("%s: the package doc talks of imports outside its checked sentence (%q): no test checks that; say it in the table's reason or drop it", pkg, importWord.FindString(rest)))
		}
	}
	sort.Strings(out)
	return out
}

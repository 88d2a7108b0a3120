package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpawnReason: each language's scan finds the doors to programs and
// to names built at run time, and passes code that has none.
func TestSpawnReason(t *testing.T) {
	tests := []struct {
		lang, code string
		asks       bool
	}{
		{langPython, `print(1)`, false},
		{langPython, `import json, re; print(json.dumps(re.compile("x").pattern))`, false},
		{langPython, "if __name__ == '__main__':\n    print(sum([1, 2]))", false},
		{langPython, `import os; os.spawnlp(os.P_WAIT, "r"+"m", "r"+"m", "x")`, true},
		{langPython, `import tempfile; tempfile._os.getcwd()`, true},
		{langPython, `o = globals()["__buil" + "tins__"]`, true},
		{langPython, `().__class__.__base__.__subclasses__()`, true},
		{langPython, `import webbrowser; webbrowser.get("r"+"m %s").open("x")`, true},
		{langPython, `import pickle; pickle.loads(b"cposix\nsystem\n(S'\\x72m x'\ntR.")`, true},
		{langPython, `import asyncio`, true},
		{langPython, `c = compile("x", "f", "exec")`, true},
		{langPython, `import types; types.FunctionType(compile("1","","eval"), {})()`, true},
		{langPython, `ｓｙｓｔｅｍ("x")`, true},
		{langPython, `import pkgutil; pkgutil.resolve_name("o"+"s:sys"+"tem")`, true},
		{langPerl, `print "hi\n"`, false},
		{langPerl, `use strict; use warnings; print 1`, false},
		{langPerl, `readpipe("r"."m x")`, true},
		{langPerl, `open(my $f, "r"."m x|")`, true},
		{langPerl, `s/x/$y/ee`, true},
		{langPerl, `-MPOSIX -e 1`, true},
		{langJS, `console.log(require("fs").readFileSync("x", "utf8"))`, false},
		{langJS, `require("child_"+"process")["ex"+"ecSync"]("r"+"m x")`, true},
		{langJS, `process["bind"+"ing"]("spawn_sync")`, true},
		{langJS, `"".constructor.constructor("return process")()`, true},
		{langJS, `process.getBuiltinModule("child_process")`, true},
		{langAwk, `{ print $1 }`, false},
		{langAwk, `$1 == "a" || $2 == "b" { print }`, false},
		{langAwk, `BEGIN { s = "s" "h"; c = "r" "m x"; print c | s }`, true},
		{langAwk, `BEGIN { "date" | getline d }`, true},
		{"", `puts 1`, false},
		{"", "`rm x`", true},
	}
	for _, tt := range tests {
		if got := spawnReason(tt.lang, tt.code); (got != "") != tt.asks {
			t.Errorf("%s %q: spawnReason = %q, want asks=%v", tt.lang, tt.code, got, tt.asks)
		}
	}
}

// TestInterpreterCodeCannotBeJudged: where the user has deny command
// rules, interpreter code that can start programs or reach names at run
// time asks (and is refused with no one to ask), including the code an
// interpreter loads from the workspace (python -m, a module it imports,
// a program on standard input); plain code passes.
func TestInterpreterCodeCannotBeJudged(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.root, map[string]string{
		"tidy.py":         "import os\nos.system('rm victim.txt')\n",
		"json.py":         "import os\nos.system('rm victim.txt')\n",
		"pkg/__init__.py": "",
		"pkg/run.py":      "import shutil; shutil.os.system('x')\n",
		"calm.py":         "print('calm')\n",
		"uses.py":         "import calm\nimport tidy\n",
	})
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{
		{"python3 -c 'print(1)'", "DQa"},
		{"python3 -c 'import calm'", "DQa"},
		{"/usr/bin/python3 -c 'o = globals()[\"__buil\" + \"tins__\"]; o.__dict__[\"x\"]'", "DQQ"},
		{"python3 -c 'import os; os.spawnlp(os.P_WAIT, \"r\"+\"m\", \"x\")'", "DQQ"},
		{"python3 -m tidy", "DQQ"},
		{"python3 -Bm pkg.run", "DQQ"},
		{"python3 -m json.tool", "DQQ"}, // the workspace's json.py shadows the library
		{"python3 -c 'import tidy'", "DQQ"},
		{"python3 -c 'import json; print(json.dumps(1))'", "DQQ"},
		{"python3 uses.py", "DQQ"},
		{"python3 calm.py", "DQa"},
		{"python3 <<'EOF'\nimport os\nEOF", "DQQ"},
		{"python3 <<'EOF'\nprint(1)\nEOF", "DQa"},
		{"echo 'print(1)' | python3", "DQQ"},
		{"echo 'print(1)' | python3 -", "DQQ"},
		{"perl -e 'readpipe(\"r\".\"m x\")'", "DQQ"},
		{"perl -ne 'print if /x/' README.md", "DQa"},
		{"node -e 'console.log(1+1)'", "DQa"},
		{"node -e 'require(\"child_\"+\"process\")'", "DQQ"},
		{"awk 'BEGIN { s = \"sh\"; print \"x\" | s }'", "DQQ"},
		{"awk -F: '{ print $1 }' README.md", "DQa"},
	})
	// Without command rules nothing of this asks more than before.
	runVerdicts(t, e, "", []verdictCase{
		{"python3 -m tidy", "DQa"},
		{"python3 -c 'import os; os.system(\"ls\")'", "DQa"},
	})
}

// TestSpawnReasonNamesTheDoor: the reason the user and the model see
// names what was found.
func TestSpawnReasonNamesTheDoor(t *testing.T) {
	if got := spawnReason(langPython, "import os"); !strings.Contains(got, "os") {
		t.Errorf("spawnReason = %q, want it to name os", got)
	}
}

// TestAliasesByOtherRoutes: hash -p, BASH_ALIASES and BASH_CMDS make a
// name run another program, as alias does; deny rules see through them.
func TestAliasesByOtherRoutes(t *testing.T) {
	e := newEnv(t)
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{
		{"hash -p /bin/rm tidy; tidy victim.txt", "DDD"},
		{"shopt -s expand_aliases\nBASH_ALIASES[tidy]=rm\ntidy victim.txt", "DDD"},
		{"BASH_CMDS[tidy]=/bin/rm; tidy victim.txt", "DDD"},
		{"BASH_ALIASES=([tidy]=rm); tidy victim.txt", "DDD"},
		{"BASH_ALIASES[$K]=rm; tidy victim.txt", "DDD"},
		{"hash -p /bin/ls l; l", "DQa"},
	})
}

// TestKeywordOptionIsNotReadOnly: set -k turns NAME=value words after
// the program into assignments, so git status HOME=. sets HOME for git.
func TestKeywordOptionIsNotReadOnly(t *testing.T) {
	e := newEnv(t)
	runVerdicts(t, e, "", []verdictCase{
		{"set -k; git status --short HOME=.", "DQa"},
		{"set -o keyword; ls PATH=bin", "DQa"},
		{"set -e; git status --short", "AAA"},
		{"git status --short", "AAA"},
	})
	runVerdicts(t, e, "deny:\n  - command: \"git commit *\"\n", []verdictCase{
		{"set -k; git X=1 commit -qam x", "DDD"},
	})
}

// TestGitIndexStagePaths: :N:PATH names PATH in a stage of the index.
func TestGitIndexStagePaths(t *testing.T) {
	for _, tt := range []struct{ in, path string }{
		{"HEAD:.env", ".env"}, {":.env", ".env"}, {":0:.env", ".env"}, {":3:a/b", "a/b"}, {"HEAD~1:0:x", "0:x"},
	} {
		if got, ok := gitRevPath(tt.in); !ok || got != tt.path {
			t.Errorf("gitRevPath(%q) = %q, %v; want %q", tt.in, got, ok, tt.path)
		}
	}
	if _, ok := gitRevPath(":/fix the bug"); ok {
		t.Errorf(":/TEXT is a commit, not a path")
	}
}

// TestGitAliasThroughIncludes: an alias in a file the repository's or
// the user's git config includes is followed.
func TestGitAliasThroughIncludes(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.root, map[string]string{
		".git/config": "[include]\n\tpath = ../gitaliases\n[includeIf \"gitdir:/nowhere/\"]\n\tpath = ../more\n",
		"gitaliases":  "[alias]\n\ttidy = !rm victim.txt\n",
		"more":        "[include]\n\tpath = deeper\n",
		"deeper":      "[alias]\n\tci = commit\n",
	})
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n  - command: \"git commit *\"\n", []verdictCase{
		{"git tidy", "DDD"},
		{"git ci -m x", "DDD"},
		{"git status --short", "AAA"},
	})
}

// TestHardLinkUnderPathRules: a file with a second name may be one a
// path rule names, so where path rules exist its read asks, --yes too.
func TestHardLinkUnderPathRules(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.root, map[string]string{"secrets/db.txt": "x\n", "docs/plain.txt": "y\n"})
	mustDo(t, os.Link(filepath.Join(e.root, "secrets/db.txt"), filepath.Join(e.root, "docs/db.txt")))
	runVerdicts(t, e, "deny:\n  - path: \"secrets/**\"\n", []verdictCase{
		{"cat docs/db.txt", "QQQ"},
		{"grep -r x docs", "QQQ"},
		{"cat docs/plain.txt", "AAA"},
	})
}

// TestCodeReadsUnderPathRules: where a path rule exists, code that can
// read files on its own asks; code that cannot, and programs whose
// files are their operands, pass.
func TestCodeReadsUnderPathRules(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.root, map[string]string{"secrets/db.txt": "x\n"})
	runVerdicts(t, e, "deny:\n  - path: \"secrets/**\"\n", []verdictCase{
		{"python3 -c 'print(open(\"secrets/db.txt\").read())'", "DQQ"},
		{"python3 -c 'import pathlib; print(pathlib.Path(\"x\").read_text())'", "DQQ"},
		{"python3 -c 'print(6*7)'", "DQa"},
		{"sed '1r secrets/db.txt' README.md", "DQQ"},
		{"sed -n 1p README.md", "DQa"},
		{"awk '{ print $1 }' README.md", "DQa"},
		{"awk 'BEGIN { while ((getline l < \"secrets/db.txt\") > 0) print l }'", "DQQ"},
		{"node -e 'console.log(require(\"fs\").readFileSync(\"x\", \"utf8\"))'", "DQQ"},
		{"perl -e 'open(F, \"secrets/db.txt\"); print <F>'", "DQQ"},
	})
}

// TestCommandVariablesAsk: a variable whose value programs run as a
// command line hides that command from deny rules, so setting one asks
// where they exist.
func TestCommandVariablesAsk(t *testing.T) {
	e := newEnv(t)
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{
		{"GIT_EDITOR='rm victim.txt;:' git commit --amend", "DQQ"},
		{"export GIT_SSH_COMMAND='rm x'; git fetch", "DQQ"},
		{"GOFLAGS=-v go build ./...", "DQa"},
	})
	runVerdicts(t, e, "", []verdictCase{
		{"GIT_EDITOR=true git commit --amend", "DQa"},
	})
}

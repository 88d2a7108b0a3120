package policy

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// Code in other languages is not parsed: where deny or ask command rules
// exist, a scan per language looks for the doors to programs and to
// names built at run time ("sys"+"tem" defeats any scan for names).

// Languages with a scanner of their own.
const (
	langPython = "python"
	langPerl   = "perl"
	langJS     = "js"
	langAwk    = "awk"
)

// langOf is the language an interpreter runs, "" for the rest.
func langOf(interp string) string {
	n := baseName(interp)
	switch {
	case strings.HasPrefix(n, "python") || strings.HasPrefix(n, "pypy"):
		return langPython
	case strings.HasPrefix(n, "perl"):
		return langPerl
	case n == "node" || n == "nodejs" || n == "deno" || n == "bun":
		return langJS
	case n == "awk" || n == "gawk" || n == "mawk" || n == "nawk":
		return langAwk
	}
	return ""
}

// pySpawn are the Python names that start a program, or reach one or a
// name at run time: modules, their functions under any module, and doors.
var pySpawn = lazyRE(`\b_*(os|posix|nt|pty|subprocess|_posixsubprocess|multiprocessing|concurrent|asyncio|ctypes|_ctypes|cffi|` +
	`webbrowser|antigravity|pickle|_pickle|cPickle|marshal|shelve|dill|cloudpickle|joblib|copyreg|runpy|codeop|importlib|imp|` +
	`zipimport|pkgutil|resolve_name|builtins|__builtin__|modules|site|addsitedir|pydoc|pdb|bdb|timeit|doctest|inspect|gc|` +
	`attrgetter|methodcaller|dictConfig|fileConfig|InteractiveInterpreter|InteractiveConsole|interact|pexpect|plumbum|` +
	`eval|exec\w*|execfile|getattr|globals|locals|vars|breakpoint|_getframe|f_globals|f_builtins|f_locals|gi_frame|` +
	`cr_frame|tb_frame|system|popen\w*|spawn\w*|posix_spawn\w*|fork\w*|startfile)\b`)

// pyCompile is the builtin compile, not a method (re.compile).
var pyCompile = lazyRE(`(^|[^.\w])compile\s*\(`)

// pyDunder finds double-underscore names; pyPlainDunders are those that
// reach nothing (a script's __name__ check, method definitions).
var pyDunder = lazyRE(`__[A-Za-z0-9_]+__`)

var pyPlainDunders = nameSet("__name__ __main__ __file__ __doc__ __init__ __all__ __version__ __author__ __future__ __str__ " +
	"__repr__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__ __hash__ __len__ __iter__ __next__ __enter__ " +
	"__exit__ __contains__ __post_init__ __slots__ __bool__")

// perlSpawn: Perl's program starters, evals, module loads, symbol-table
// tricks, and open (its two-argument form runs a command).
var perlSpawn = lazyRE(`\b(system|exec|fork|readpipe|qx|syscall|open|open2|open3|pipe|eval|do|require|use|CORE|` +
	`DynaLoader|XSLoader|can|AUTOLOAD)\b|` + "`" + `|::\{|\$::|/[a-z]*e[a-z]*e\b|(^|\s)-[A-Za-z]*[mM]`)

// perlPlainUse are pragmas a one-liner may use.
var perlPlainUse = lazyRE(`\b(use|no)\s+(strict|warnings|utf8|feature|integer|v?5[0-9.]*)\s*[;'"]`)

// jsSpawn: Node's doors to programs and to run-time names (computed
// members, eval, the Function constructor any function reaches).
var jsSpawn = lazyRE(`\b(child_process|spawn\w*|exec\w*|fork|binding|_linkedBinding|dlopen|mainModule|getBuiltinModule|` +
	`constructor|eval|Function|globalThis|global|Reflect|Proxy|import|module|vm|worker_threads|Worker|cluster|wasi|inspector|` +
	`Deno|Bun)\b|\b(process|module|require|globalThis|global|this|self|window)\s*\[`)

// jsRequire finds require(...) calls; jsPlainModules start nothing.
var jsRequire = lazyRE(`\brequire\s*(\(\s*(?:"([a-z:_/]+)"|'([a-z:_/]+)')\s*\))?`)

var jsPlainModules = nameSet("fs path os util crypto url events assert buffer readline zlib stream string_decoder querystring " +
	"timers perf_hooks fs/promises node:fs node:path node:os node:util node:crypto node:fs/promises " +
	"node:assert")

// awkSpawn: awk's system(), its pipes and gawk's coprocesses and
// extensions.
var awkSpawn = lazyRE(`\bsystem\b|(^|[^|])\|($|[^|])|\|&|@load|@include|\bextension\s*\(`)

// spawnReason says how code in lang may start a program or reach a name
// at run time, "" when the scan finds no way.
func spawnReason(lang, text string) string {
	switch lang {
	case langPython:
		if m := pySpawn().FindString(text); m != "" {
			return m
		}
		if pyCompile().MatchString(text) {
			return "compile" // a code object runs without exec: types.FunctionType(code, {})()
		}
		for _, d := range pyDunder().FindAllString(text, -1) {
			if !pyPlainDunders.has(d) {
				return d
			}
		}
		for _, r := range text {
			if r >= 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
				// Python folds identifiers by NFKC: ｓｙｓｔｅｍ is system.
				return "non-ASCII letters (" + string(r) + "), which Python may fold into names"
			}
		}
		return ""
	case langPerl:
		return strings.TrimSpace(perlSpawn().FindString(perlPlainUse().ReplaceAllString(text, "")))
	case langJS:
		for _, m := range jsRequire().FindAllStringSubmatch(text, -1) {
			name := m[2] + m[3]
			if !jsPlainModules.has(name) {
				if name == "" {
					return "require of a module named at run time"
				}
				return "require(\"" + name + "\")"
			}
		}
		return strings.TrimSpace(jsSpawn().FindString(text))
	case langAwk:
		return strings.TrimSpace(awkSpawn().FindString(text))
	}
	if m := spawnAPI().FindStringSubmatch(text); m != nil {
		if api := strings.TrimSpace(m[1]); api != "" {
			return api
		}
		return strings.TrimSpace(m[0])
	}
	return ""
}

// Code that can read files on its own cannot be checked against path
// rules (the sandbox does not enforce them), so it asks where they exist.
var (
	pyRead = lazyRE(`\b(open|io|_io|pathlib|Path|fileinput|linecache|codecs|glob|shutil|tarfile|zipfile|sqlite3|` +
		`mmap|tokenize|configparser|filecmp|dbm|netrc|mailbox|zipapp|tomllib|plistlib|wave|sndhdr|imghdr|mimetypes|read_text|read_bytes)\b`)
	perlRead = lazyRE(`\b(open|sysopen|readline|opendir|readdir|glob|stat|lstat|File|Path|IO)\b|<[A-Za-z_$*./~{}]+>|<<>>|\s-[erwxofdzsl]\s`)
	jsRead   = lazyRE(`\b(fs|readFile\w*|createReadStream|open\w*|readdir\w*|Deno|Bun|fetch)\b`)
	awkRead  = lazyRE(`\bgetline\b|\bARGV\b|\bENVIRON\b`)
	sedRead  = lazyRE(`(^|[;{}\n0-9$/!,])\s*[rRwWeF](\s|$)|/[gpIiMme0-9]*[wW]\s`)
)

// readReason says how code in lang may read a file on its own, ""
// when the scan finds no way.
func readReason(lang, name, text string) string {
	if r := spawnReason(lang, text); r != "" {
		return r
	}
	re := map[string]func() *regexp.Regexp{langPython: pyRead, langPerl: perlRead, langJS: jsRead, langAwk: awkRead}[lang]
	if n := baseName(name); lang == "" && (n == "sed" || n == "gsed") {
		re = sedRead
	}
	if re == nil { // a language without a scanner: any code may read
		if strings.TrimSpace(text) != "" {
			return "code godwit does not parse"
		}
		return ""
	}
	return strings.TrimSpace(re().FindString(text))
}

// takesCode reports whether v is an option by which an interpreter of
// lang takes its program as an argument (python -c and -m, perl -e,
// node --eval).
func takesCode(lang, v string) bool {
	if !strings.HasPrefix(v, "-") || v == "-" || v == "--" {
		return false
	}
	switch lang {
	case langPython:
		return !strings.HasPrefix(v, "--") && strings.ContainsAny(v[1:], "cm")
	case langPerl:
		return !strings.HasPrefix(v, "--") && strings.ContainsAny(v[1:], "eE")
	case langJS:
		return v == "-e" || v == "--eval" || v == "-p" || v == "--print" || strings.HasPrefix(v, "--eval=") || strings.HasPrefix(v, "--print=")
	}
	return true // awk's program is its first operand
}

// stdinProgram reports whether an interpreter of lang reads its program
// from standard input: no code option and no operand but "-".
func stdinProgram(lang string, args []Word) bool {
	if lang == "" || lang == langAwk {
		return false
	}
	for _, a := range args {
		if !a.Known || takesCode(lang, a.Value) {
			return false
		}
		if a.Value == "-" {
			return true
		}
		if !strings.HasPrefix(a.Value, "-") {
			return false // a program file (or an option's value, which asks nothing more)
		}
	}
	return true
}

// pyImport finds the top-level names a Python program imports.
var pyImport = lazyRE(`(?:^|[\s;:])(?:from[ \t]+([A-Za-z_][A-Za-z0-9_]*)|import[ \t]+([A-Za-z_][A-Za-z0-9_., \t]*))`)

// pyModuleFile is the file Python loads for module name from dir (the
// folder it puts first on sys.path: the current one for -c, -m and
// standard input, the script's own for a file), "" when dir has none.
func pyModuleFile(dir, name string, main bool) string {
	if dir == "" || name == "" {
		return ""
	}
	parts := strings.Split(name, ".")
	base := filepath.Join(append([]string{dir}, parts...)...)
	cands := []string{base + ".py", filepath.Join(base, "__init__.py")}
	if main {
		cands = append([]string{filepath.Join(base, "__main__.py")}, cands...)
	}
	if len(parts) > 1 { // the parent is imported first: pkg/__init__.py, or a pkg.py in its place
		cands = append(cands, filepath.Join(dir, parts[0], "__init__.py"), filepath.Join(dir, parts[0]+".py"))
	}
	for _, c := range cands {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			return c
		}
	}
	return ""
}

// pyLocalImports are the workspace files a Python program text imports
// from dir: the repository's own modules (a json.py shadowing the
// standard library included), which run as part of it.
func pyLocalImports(dir, text string) []string {
	var out []string
	for _, m := range pyImport().FindAllStringSubmatch(text, -1) {
		names := []string{m[1]}
		if m[2] != "" {
			names = nil
			for _, n := range strings.Split(m[2], ",") {
				n = strings.TrimSpace(n)
				if i := strings.IndexAny(n, " \t"); i >= 0 {
					n = n[:i] // import x as y
				}
				names = append(names, n)
			}
		}
		for _, n := range names {
			if f := pyModuleFile(dir, n, false); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}

package policy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/tool"
)

// level is how much an item needs approval.
type level int

const (
	// levelRead runs in every mode.
	levelRead level = iota
	// levelSensitive (a read of a secret, or outside the workspace) asks,
	// except with --yes.
	levelSensitive
	// levelWrite (a write in the workspace, a command that is not
	// read-only) is refused read-only, asks with --allow-write, runs
	// with --yes.
	levelWrite
	// levelEscape (a write outside the workspace, or to files that grant
	// permissions or run later) is refused read-only and asks otherwise.
	levelEscape
)

type itemKind int

const (
	kindTool    itemKind = iota // a call with no paths or command
	kindPath                    // a file read or written
	kindCommand                 // one simple command
	kindRaw                     // a command line that was not analysed
)

// item is one thing a call does that approval cares about: a file it
// touches, one simple command of its command line.
type item struct {
	kind  itemKind
	level level
	what  string // "runs `rm -rf x`", "writes src/a.go"
	why   string // why a levelRead item runs freely
	words []Word // kindCommand
	// variants are the commands behind wrappers and bash -c (kindCommand),
	// and args the literal arguments as paths, for deny and ask rules.
	variants [][]Word
	args     []string
	// hidden says why some of what the command runs cannot be known (a
	// pipe into sh): deny and ask rules cannot be checked on it.
	hidden string
	// code are programs in other languages the command runs: a deny or
	// ask rule whose words appear in one asks.
	code []codeText
	// unlisted says why the files the item reads cannot be listed (git's
	// history, a folder too big to walk, a computed argument): path
	// rules cannot be checked on it, so it asks where they exist.
	unlisted string
	abs      string // kindPath; "" when computed at run time
	rel      string // kindPath; "" when outside the workspace
	raw      string // kindRaw
	// scope is what an Always answer remembers; nil when none fits.
	scope *Rule
	// pinned items (writes to protected files) ask in every mode, after
	// any Always.
	pinned bool
	// via is the tool the model called to run this one (tool_call):
	// deny and ask rules naming it hold too.
	via string
}

// items breaks a call down.
func (p *Policy) items(toolName string, acc tool.Access) []item {
	var out []item
	for _, pa := range acc.Paths {
		out = append(out, p.fileItem(toolName, pa))
	}
	if acc.Command != "" {
		out = append(out, p.commandItems(toolName, acc.Command)...)
	}
	if len(acc.Paths) == 0 && acc.Command == "" {
		// A call with no path or command is still one item, so a rule
		// naming its tool holds for it: recall, search_memory, subagent,
		// an MCP tool the server marked read-only.
		what := "runs " + toolName
		if acc.Summary != "" {
			what = acc.Summary
		}
		it := item{kind: kindTool, level: levelWrite, what: what, scope: &Rule{Tool: toolName}}
		if !acc.Mutates {
			it.level, it.why = levelRead, "changes nothing"
		}
		out = append(out, it)
	}
	if p.hookDirsErr != nil && slices.ContainsFunc(out, func(it item) bool { return it.level >= levelWrite }) {
		out = append(out, item{kind: kindTool, level: levelEscape, pinned: true, what: "writes while git's config cannot be read (" +
			oneLine(p.hookDirsErr.Error(), 80) + "), so any folder may be one git runs hooks from"})
	}
	for i := range out {
		out[i].via = acc.Via
	}
	return out
}

// pathItem classifies a file read or written; abs is absolute with
// symlinks resolved, or "" when computed at run time.
func (p *Policy) pathItem(toolName, abs string, write bool) item {
	return p.fileItem(toolName, tool.PathAccess{Path: abs, Write: write})
}

// fileItem is pathItem for a path a tool's Access names, which may say
// the file had another hard link when the tool looked.
func (p *Policy) fileItem(toolName string, pa tool.PathAccess) item {
	abs, write := pa.Path, pa.Write
	it := item{kind: kindPath, abs: abs}
	pl := p.where(abs)
	show := filepath.ToSlash(abs)
	switch {
	case pl == placeInside:
		it.rel = p.rel(abs)
		show = it.rel
	case p.home != "" && within(p.home, abs):
		if r, err := filepath.Rel(p.home, abs); err == nil {
			show = "~/" + filepath.ToSlash(r)
		}
	}
	if abs == "" {
		show = "a path computed at run time"
	}
	secret := abs != "" && isSecret(abs)
	switch {
	case pl == placeDevice:
		it.level, it.why = levelRead, "a device file"
		return it
	case !write && secret:
		it.level, it.what = levelSensitive, "reads "+show+", a secrets file"
	case !write && (pl == placeOutside || pl == placeUnknown):
		it.level, it.what = levelSensitive, "reads "+show+", outside the workspace"
	case !write && pl == placeInside && (pa.Linked || hardLinked(abs)):
		it.level, it.what = levelSensitive, "reads "+show+", a hard link whose other names may be outside the workspace (a secret there, by another name)"
		// Its other names may also be ones a path rule names.
		it.unlisted = "it has more than one name, and another may be one a path rule names"
	case !write:
		it.level, it.what, it.why = levelRead, "reads "+show, "reads inside the workspace"
		return it
	case pl == placeOutside || pl == placeUnknown:
		it.level, it.what = levelEscape, "writes "+show+", outside the workspace"
	case p.isProtected(abs):
		// Asks every time: no Always is offered, and none given for
		// another path covers it (judge).
		it.level, it.what, it.pinned = levelEscape, "writes "+show+", which can grant permissions or run programs later", true
		return it
	case secret:
		it.level, it.what = levelWrite, "writes "+show+", a secrets file"
	default:
		it.level, it.what = levelWrite, "writes "+show
	}
	if abs != "" {
		// Always covers what the person saw, this file, and no more: a
		// folder's scope (./*) reached files never shown.
		it.scope = &Rule{Tool: toolName, Path: globEscape(filepath.ToSlash(abs)), label: toolName + " path " + show}
	}
	return it
}

// commandItems analyses a command line: one item per simple command, one
// per file redirection, plus the files read-only commands read.
func (p *Policy) commandItems(toolName, line string) []item {
	raw := func(what string) []item {
		return []item{{kind: kindRaw, level: levelWrite, raw: line, what: what,
			scope: &Rule{Tool: toolName, raw: line, label: toolName + " exactly: " + oneLine(line, 60)}}}
	}
	if p.shell == "powershell" {
		return raw("runs `" + oneLine(line, 80) + "` (PowerShell commands are not analysed)")
	}
	sc, err := Split(line, ShellEnv{Dir: p.root, Home: p.home, Vars: p.vars, DirExists: isDir})
	if err != nil {
		return raw("runs `" + oneLine(line, 80) + "`, which could not be analysed (" + err.Error() + ")")
	}
	var out []item
	gitEnv := gitEnvSet(sc)
	for i, c := range sc.Commands {
		u := &unwrapper{p: p, gitEnv: gitEnv}
		if len(c.Words) > 0 && c.Decl == "" {
			u.writes = writesBefore(sc, i)
		}
		out = append(out, p.simpleItems(toolName, c, u)...)
	}
	out = append(out, p.varItems(sc)...)
	for _, r := range sc.Redirects {
		out = append(out, p.redirectItem(toolName, r))
	}
	return out
}

// redirectItem is one file redirection: a read or a write of its file.
func (p *Policy) redirectItem(toolName string, r Redirect) item {
	abs := ""
	if r.Target.Literal() {
		abs = resolveIn(r.Dir, r.Target.Value)
	}
	return p.pathItem(toolName, abs, r.Write)
}

// dangerousVars change what later commands run or where they work;
// setting one makes the line need approval. XDG_CONFIG_HOME moves git's
// configuration; GCONV_PATH and LOCPATH load code into any program.
var dangerousVars = lazyRE(`^(PATH|CDPATH|HOME|IFS|ENV|BASH_ENV|BASHOPTS|SHELLOPTS|PS4|PROMPT_COMMAND|GLOBIGNORE|PAGER|MANPAGER|EDITOR|VISUAL|` +
	`LESSOPEN|LESSCLOSE|RIPGREP_CONFIG_PATH|GREP_OPTIONS|BASH_XTRACEFD|LD_.*|DYLD_.*|GIT_.*|BASH_FUNC_.*|XDG_.*|GCONV_PATH|` +
	`LOCPATH|NLSPATH|GLIBC_TUNABLES|POSIXLY_CORRECT|TMPDIR|BASH_LOADABLES_PATH|EXECIGNORE|FIGNORE|HISTFILE|INPUTRC|TERMINFO.*)$`)

// commandVars are variables whose value programs run as a command line
// (git's editor and pager, ssh's command, askpass helpers, a browser):
// deny and ask rules cannot see into them, so setting one asks where
// such rules exist.
var commandVars = lazyRE(`^(EDITOR|VISUAL|PAGER|MANPAGER|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_PAGER|GIT_SSH|GIT_SSH_COMMAND|` +
	`GIT_EXTERNAL_DIFF|GIT_ASKPASS|SSH_ASKPASS|SUDO_ASKPASS|GIT_PROXY_COMMAND|BROWSER|LESSOPEN|LESSCLOSE|CVS_RSH|RSYNC_RSH|` +
	`SHELL|BASH_ENV|ENV|PROMPT_COMMAND|PS4|TERMINAL|GIT_EXEC_PATH|GIT_CONFIG_.*|SYSTEMD_PAGER|DIFF|MERGE|FCEDIT)$`)

func commandVar(names []string) string {
	for _, n := range names {
		if commandVars().MatchString(n) {
			return n
		}
	}
	return ""
}

// secretVars are variable names that likely hold a secret; expanding
// one prints it as surely as cat .env does.
var secretVars = lazyRE(`(?i)(KEY|TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|COOKIE|SESSION|PRIVATE|AUTH)`)

// varItems judge what the line does with variables beyond its simple
// commands: assignments by ${X:=v}, arithmetic or a for loop, arithmetic
// evaluating a variable's value (which can assign any variable), and
// expansions of variables that may hold secrets.
func (p *Policy) varItems(sc Script) []item {
	var out []item
	for _, n := range dedupe(sc.Sets) {
		if n == "" || dangerousVars().MatchString(n) {
			out = append(out, item{kind: kindTool, level: levelWrite, what: "sets " + n + ", which changes what later commands do"})
		}
	}
	if len(sc.Arith) > 0 {
		out = append(out, item{kind: kindTool, level: levelWrite,
			what: "evaluates " + sc.Arith[0] + " as arithmetic, which can assign any variable (PATH included)"})
	}
	for _, n := range dedupe(sc.Params) {
		switch {
		case n == "!":
			out = append(out, item{kind: kindPath, level: levelSensitive, what: "expands a variable named at run time (${!name}), which may hold a secret"})
		case secretVars().MatchString(n) && !p.knownVar(n):
			out = append(out, item{kind: kindPath, level: levelSensitive, what: "expands $" + n + ", which may hold a secret"})
		}
	}
	return out
}

func (p *Policy) knownVar(n string) bool {
	_, ok := p.vars[n]
	return ok
}

// simpleItems judges one simple command, and what runs inside it as if
// typed in the line (a shell's -c string, a wrapper's command, find
// -exec, xargs) with every rule.
func (p *Policy) simpleItems(toolName string, c SimpleCommand, u *unwrapper) []item {
	if len(c.Words) == 0 || c.Decl != "" {
		return p.declItems(c)
	}
	uw := u.variants(c, 0)
	out := p.commandItem(toolName, c, uw)
	seen := map[string]bool{}
	for _, ic := range uw.inner {
		if len(ic.Words) == 0 || ic.Decl != "" {
			out = append(out, p.declItems(ic)...)
			continue
		}
		if k := render(ic.Words) + "\x00" + ic.Dir; !seen[k] {
			seen[k] = true
			out = append(out, p.commandItem(toolName, ic, unwrapped{variants: [][]Word{ic.Words}})...)
		}
	}
	for _, r := range uw.redirects {
		out = append(out, p.redirectItem(toolName, r))
	}
	return out
}

// commandItem judges one simple command given what it runs (uw).
func (p *Policy) commandItem(toolName string, c SimpleCommand, uw unwrapped) []item {
	ro := checkReadOnly(c)
	it := item{kind: kindCommand, words: c.Words, what: "runs `" + render(c.Words) + "`", scope: commandScope(toolName, c.Words),
		variants: uw.variants, hidden: uw.hidden, code: uw.code}
	if n := commandVar(c.Assigns); n != "" && it.hidden == "" {
		it.hidden = "it sets " + n + ", a command line the program runs, which godwit does not follow"
	}
	for _, w := range c.Words[1:] {
		if w.Known && !strings.HasPrefix(w.Value, "-") {
			paths, complete := p.argPaths(w, c.Dir)
			it.args = append(it.args, paths...)
			if !complete {
				it.unlisted = "its glob " + w.Value + " matches too many files to check"
			}
		}
	}
	if ro.why != "" {
		it.level = levelWrite
		for _, w := range c.Words[1:] {
			if !w.Known {
				it.unlisted = "an argument is computed at run time (" + oneLine(w.Value, 40) + ") and may name any file"
				break
			}
		}
		if baseName(c.Name()) == "git" {
			if sub, _, _, _ := gitSub(c.Words[1:]); gitHistoryPrinters[sub.Value] {
				it.unlisted = "it packs file contents from git's history, where files a path rule names may be"
			}
		}
		return append([]item{it}, p.protectedItems(toolName, c)...)
	}
	it.level, it.why = levelRead, "read-only command"
	out := []item{it}
	for _, why := range ro.asks {
		out = append(out, item{kind: kindPath, level: levelSensitive, what: "runs `" + render(c.Words) + "`, which " + why})
	}
	// A reader with no file operands reads where it runs (ls, rg).
	if len(ro.paths) == 0 && readsDir(c) && p.where(c.Dir) != placeInside {
		show := c.Dir
		if show == "" {
			show = "a folder computed at run time"
		}
		out = append(out, item{kind: kindPath, abs: c.Dir, level: levelSensitive, what: "reads " + show + ", outside the workspace"})
	}
	for _, w := range ro.paths {
		out = append(out, p.readItems(toolName, w, c.Dir)...)
	}
	out = append(out, p.searchItems(toolName, c, ro)...)
	out = append(out, p.gitTreeItems(toolName, c, ro)...)
	out = append(out, p.historyItems(toolName, c, ro)...)
	for _, w := range ro.names {
		if !w.Literal() {
			continue
		}
		abs := resolveIn(c.Dir, w.Value)
		switch {
		case isSecret(w.Value):
			if abs == "" {
				abs = w.Value
			}
			it := p.pathItem(toolName, abs, false)
			if it.level == levelRead { // a name that is not where it resolves
				it.level, it.what = levelSensitive, "names "+w.Value+", a secrets file"
			}
			out = append(out, it)
		case abs != "" && p.pathRuled(toolName, abs):
			// git show HEAD:secrets/x names a file a path rule covers.
			out = append(out, p.pathItem(toolName, abs, false))
		}
	}
	return out
}

// declItems judges a bare assignment or a declaration (export, declare,
// local, readonly, typeset): one that sets a variable changing what
// later commands run needs approval; one that prints variables (export
// -p, declare -p, a bare declare) is an environment dump and asks.
func (p *Policy) declItems(c SimpleCommand) []item {
	prints := c.Decl != "" && len(c.Assigns) == 0
	for _, w := range c.Words { // declaration flags
		what := "runs `" + c.Decl + " " + render(c.Words) + "`"
		switch {
		// -n makes a reference to any variable, PATH included.
		case !w.Known || !strings.HasPrefix(w.Value, "-") && !strings.HasPrefix(w.Value, "+"),
			strings.ContainsRune(w.Value, 'n') && strings.HasPrefix(w.Value, "-"):
			return []item{{kind: kindTool, level: levelWrite, what: what}}
		case strings.ContainsRune(w.Value, 'i') && strings.HasPrefix(w.Value, "-"):
			// What -i's variables are assigned is arithmetic, which can
			// assign any variable.
			return []item{{kind: kindTool, level: levelWrite, what: what + ", whose integer variables evaluate arithmetic"}}
		case strings.ContainsRune(w.Value, 'p'):
			prints = true
		case strings.ContainsAny(w.Value, "fF"):
			prints = false // functions, not variables
		}
	}
	if prints {
		return []item{{kind: kindPath, level: levelSensitive, what: "runs `" + strings.TrimSpace(c.Decl+" "+render(c.Words)) + "`, which " + envDump}}
	}
	for _, n := range c.Assigns {
		if dangerousVars().MatchString(n) {
			it := item{kind: kindTool, level: levelWrite, what: "sets " + n + ", which changes what later commands do"}
			if commandVar([]string{n}) != "" {
				it.hidden = "it sets " + n + ", a command line later programs run, which godwit does not follow"
			}
			return []item{it}
		}
	}
	return nil
}

// readsDir reports whether c is a reader that, without file operands,
// reads its working folder.
func readsDir(c SimpleCommand) bool { return dirReaders.has(c.Name()) }

var dirReaders = nameSet("ls find rg ag fd tree du git grep egrep fgrep")

// Default bounds of a glob argument's expansion (Policy.globMatches,
// Policy.globDirs): how many files it is expanded to for checking, and
// how many folders are read to do it; beyond them the command asks.
const (
	maxGlobMatches = 2000
	maxGlobDirs    = 2000
)

var errTooMany = errors.New("too many matches")

// budgetFS reads at most left more folders.
type budgetFS struct {
	fs.FS
	left *int
}

func (b budgetFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if *b.left--; *b.left < 0 {
		return nil, errTooMany
	}
	return fs.ReadDir(b.FS, name)
}

// globWalk calls fn with each path the absolute pattern matches; with
// bashDots, as bash expands it (a * passes over dot files unless the
// pattern names one). False when it stopped at p.globMatches matches or
// p.globDirs folders read: what it did not list may be anything.
func (p *Policy) globWalk(pattern string, bashDots bool, fn func(abs string)) bool {
	base, pat := doublestar.SplitPattern(filepath.ToSlash(pattern))
	n, dirs := 0, p.globDirs
	dots := !bashDots || strings.Contains("/"+pat, "/.")
	err := doublestar.GlobWalk(budgetFS{FS: os.DirFS(filepath.FromSlash(base)), left: &dirs}, pat, func(m string, _ fs.DirEntry) error {
		if n++; n > p.globMatches {
			return errTooMany
		}
		if dots || !strings.Contains("/"+m, "/.") {
			fn(kernelPath(filepath.Join(filepath.FromSlash(base), filepath.FromSlash(m))))
		}
		return nil
	})
	return !errors.Is(err, errTooMany) && dirs >= 0
}

// readItems checks one file argument of a read-only command.
func (p *Policy) readItems(toolName string, w Word, dir string) []item {
	switch {
	case w.Known && w.Value == "-", isProcSubst(w):
		return nil // stdin, or a pipe from a command judged on its own
	case !w.Known:
		return []item{{kind: kindPath, level: levelSensitive, what: "reads files named at run time (" + w.Value + ")"}}
	case !w.Glob:
		return []item{p.pathItem(toolName, resolveIn(dir, w.Value), false)}
	}
	pattern := w.Value
	if !filepath.IsAbs(pattern) {
		if dir == "" {
			return []item{{kind: kindPath, level: levelSensitive, what: "reads files matching " + pattern + " in a folder computed at run time"}}
		}
		pattern = filepath.Join(dir, pattern)
	}
	var out []item
	complete := p.globWalk(pattern, false, func(abs string) {
		if it := p.pathItem(toolName, abs, false); it.level != levelRead || p.pathRuled(toolName, abs) {
			out = append(out, it) // a match that is a secret, outside, or that a path rule names
		}
	})
	if !complete {
		return []item{{kind: kindPath, level: levelSensitive, what: "reads more than " + strconv.Itoa(p.globMatches) + " files matching " + w.Value,
			unlisted: "its glob matches too many files to check"}}
	}
	return out
}

var subcommandLike = lazyRE(`^[A-Za-z0-9][A-Za-z0-9._:-]*$`)

// commandScope is what Always remembers for a command: its program and,
// when it looks like a subcommand, its first argument ("go test *",
// "npm run *", "rm *").
func commandScope(toolName string, words []Word) *Rule {
	name := words[0]
	if !name.Literal() || strings.ContainsAny(name.Value, "*? \t") {
		return nil
	}
	pat := name.Value
	if len(words) > 1 && words[1].Literal() && subcommandLike().MatchString(words[1].Value) {
		pat += " " + words[1].Value
	}
	pat += " *"
	return &Rule{Tool: toolName, Command: pat}
}

// render shows a command's words for a person or the model.
func render(words []Word) string {
	parts := make([]string, len(words))
	for i, w := range words {
		v := w.Value
		if w.Known && !w.Glob && (v == "" || strings.ContainsAny(v, " \t\n'\"$`\\|&;<>()*?[]{}")) {
			v = "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
		}
		parts[i] = v
	}
	return oneLine(strings.Join(parts, " "), 100)
}

// globEscape quotes the glob metacharacters of a literal path.
func globEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[]{}\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// hardLinked reports a regular file with more than one name: the others
// cannot be seen from here and may be outside the workspace.
func hardLinked(abs string) bool {
	fi, err := os.Lstat(abs)
	return err == nil && fi.Mode().IsRegular() && workspace.Links(fi) > 1
}

func isDir(abs string) bool {
	fi, err := os.Stat(abs)
	return err == nil && fi.IsDir()
}

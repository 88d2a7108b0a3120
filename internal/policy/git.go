package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/gitconfig"
)

// Git's check (docs/safety.md says why each part): words against the
// options that write or run a program; a read asks unless committed
// secrets can be ruled out.

// gitBadLong are long options that write a file or run a program, for
// every subcommand (the diff options --output and --ext-diff reach log,
// show, stash, rev-list and shortlog alike); --help runs man or a
// browser.
var gitBadLong = []string{"output", "open-files-in-pager", "ext-diff", "exec", "upload-pack", "receive-pack", "help", "paginate"}

// gitTop are the options git itself takes that change nothing: -C DIR
// moves where it works, which is then checked like any folder read.
var gitTop = nameSet("--no-pager -P --no-optional-locks --no-replace-objects --literal-pathspecs --glob-pathspecs " +
	"--noglob-pathspecs --icase-pathspecs --no-advice --version")

// gitContent says what a subcommand prints by default (programs.txt's
// git-readers).
type gitContent uint8

const (
	gitMeta gitContent = iota
	gitPatch
	gitGrep
	gitObject
	gitFileName
)

var gitReaders = sync.OnceValue(func() map[string]gitContent {
	m := map[string]gitContent{}
	for i, kind := range []string{"meta", "patch", "grep", "object", "file"} {
		for _, sub := range tableMap("git-readers")[kind] {
			m[sub] = gitContent(i)
		}
	}
	return m
})

// gitNoPatch are options that print no file contents even where a patch
// is the default.
var gitNoPatch = []string{"-s", "--no-patch", "--numstat", "--shortstat", "--name-only", "--name-status", "--raw",
	"--summary", "--compact-summary", "--quiet", "--exit-code"}

// gitPatchLong are long options that print file contents.
var gitPatchLong = []string{"patch", "unified", "patch-with-stat", "patch-with-raw", "cc", "dd", "remerge-diff", "diff-merges",
	"word-diff", "color-words", "function-context", "binary", "check", "textconv"}

// gitListFlags may be given to branch and tag without them creating
// anything.
var gitListFlags = []string{"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "-l", "--list",
	"--show-current", "--merged", "--no-merged", "--contains", "--no-contains", "--points-at", "--column", "--no-column"}

// gitBadWord reports the bad option w is, if any.
func gitBadWord(sub, v string) string {
	if strings.HasPrefix(v, "--") {
		name, _, _ := strings.Cut(v[2:], "=")
		if name == "" {
			return ""
		}
		for _, b := range gitBadLong {
			if strings.HasPrefix(b, name) {
				return "--" + b
			}
		}
		return ""
	}
	if sub == "grep" && len(v) > 1 && v[0] == '-' && strings.ContainsRune(v[1:], 'O') {
		return "-O (--open-files-in-pager)"
	}
	return ""
}

// gitPatchWord reports whether v asks for file contents: -p, -u, -U3,
// --patch, --word-diff=color, -L1,5:f, a cluster such as -sp. A cluster
// is read up to the first letter that takes a value (-Sfoo, -n5).
func gitPatchWord(v string) bool {
	if strings.HasPrefix(v, "--") {
		name, _, _ := strings.Cut(v[2:], "=")
		return slices.Contains(gitPatchLong, name) || (len(name) >= 3 && slices.ContainsFunc(gitPatchLong, func(l string) bool {
			return strings.HasPrefix(l, name) && l != "check" // abbreviations
		}))
	}
	if len(v) < 2 || v[0] != '-' {
		return false
	}
	for _, c := range v[1:] {
		switch {
		case strings.ContainsRune("puUWcmL", c):
			return true
		case strings.ContainsRune("SGnOlBMCX", c):
			return false
		}
	}
	return false
}

// gitRO judges a git command. Every argument must be literal.
func gitRO(c SimpleCommand) roResult {
	args := c.Words[1:]
	for _, a := range args {
		if !a.Literal() {
			return notRO("an argument is computed at run time (" + a.Value + ")")
		}
	}
	dir := c.Dir
	var r roResult
	subW, rest, globals, why := gitSub(args)
	if why != "" {
		return notRO("git: " + why)
	}
	for _, o := range globals {
		switch {
		case gitTop.has(o.as) || (o.as == "--help" && subW == Word{}):
		case o.as == "-C" && o.has:
			dir = resolveIn(dir, o.value.Value)
			r.paths = append(r.paths, o.value)
		case o.as == "--help":
			return notRO("git --help COMMAND runs man or a browser")
		default:
			return notRO("git " + o.as + " can change what git runs")
		}
	}
	if subW == (Word{}) {
		return r
	}
	sub := subW.Value
	for _, a := range rest {
		if b := gitBadWord(sub, a.Value); b != "" {
			return notRO("git " + sub + " " + a.Value + " is " + b + ", which writes a file or runs a program")
		}
	}
	if kind, ok := gitReaders()[sub]; ok {
		return gitRead(c, dir, sub, kind, rest, r)
	}
	first := ""
	if len(rest) > 0 {
		first = rest[0].Value
	}
	switch sub {
	case "help":
		if len(rest) == 0 || (len(rest) == 1 && (first == "-a" || first == "--all" || first == "-g" || first == "--guides")) {
			return r
		}
		return notRO("git help COMMAND runs man or a browser")
	case "branch", "tag":
		listing := false
		for _, a := range rest {
			v := a.Value
			switch {
			case v == "-l" || v == "--list":
				listing = true
			case slices.Contains(gitListFlags, v) || strings.HasPrefix(v, "--sort=") || strings.HasPrefix(v, "--format=") ||
				strings.HasPrefix(v, "--contains=") || strings.HasPrefix(v, "--merged=") || strings.HasPrefix(v, "--points-at="):
			case strings.HasPrefix(v, "-"):
				return notRO("git " + sub + " " + v + " may change the repository")
			default:
				if !listing {
					return notRO("git " + sub + " NAME creates or changes a " + sub)
				}
			}
		}
		return r
	case "remote":
		if len(rest) == 0 {
			return r
		}
		if (len(rest) == 1 && (first == "-v" || first == "--verbose")) || (len(rest) == 2 && first == "get-url") {
			if gitConfigHasCredentials(dir) {
				r.asks = append(r.asks, "prints the remotes' URLs, and one holds a user name or token")
			}
			return r
		}
	case "stash":
		if first == "list" || first == "show" {
			if slices.ContainsFunc(rest[1:], func(a Word) bool { return gitPatchWord(a.Value) }) {
				r.asks = append(r.asks, "prints file contents from a stash, where secrets may be")
			}
			return r
		}
	case "worktree":
		if first == "list" {
			return r
		}
	case "config":
		return gitConfigRO(dir, rest, r)
	}
	return notRO("git " + sub + " may change the repository or the network state")
}

// gitConfigRO: reading one key is fine unless it may hold a token;
// listing the configuration asks, as an environment dump does.
func gitConfigRO(dir string, rest []Word, r roResult) roResult {
	var keys []string
	reads, lists := false, false
	for k, a := range rest {
		v := a.Value
		switch {
		case k == 0 && v == "get":
			reads = true
		case k == 0 && v == "list":
			lists = true
		case v == "--get" || v == "--get-all":
			reads = true
		case v == "--get-regexp" || v == "--list" || v == "-l" || v == "--all" || v == "--regexp" || strings.HasPrefix(v, "--regexp="):
			reads, lists = true, true
		case slices.Contains([]string{"--show-origin", "--show-scope", "--null", "-z", "--global", "--local", "--system",
			"--name-only", "--includes", "--no-includes"}, v):
		case strings.HasPrefix(v, "-"):
			return notRO("git config " + v + " may change the configuration")
		default:
			keys = append(keys, v)
		}
	}
	if !reads && !lists {
		return notRO("git config may change the configuration")
	}
	switch {
	case lists:
		r.asks = append(r.asks, "prints git's configuration, which may hold tokens")
	case slices.ContainsFunc(keys, func(k string) bool { return gitSecretKey().MatchString(k) }):
		r.asks = append(r.asks, "prints a git setting that may hold a token")
	}
	return r
}

var gitSecretKey = lazyRE(`(?i)(url|token|password|secret|extraheader|credential|cookie|proxy|key)`)

// userInfo finds a URL with a user name or token in it.
var userInfo = lazyRE(`://[^\s/@]+@`)

// gitConfigHasCredentials reports whether the repository's config
// (around dir) may hold a credential: a URL with a user name or token
// (a remote's, an insteadOf's), an extraHeader, a [credential] section;
// or it cannot be read, so nothing can be ruled out.
func gitConfigHasCredentials(dir string) bool {
	gd := gitDirOf(dir)
	if gd == "" {
		return dir == ""
	}
	settings, err := gitconfig.ReadFile(filepath.Join(gd, "config"))
	if err != nil {
		return true
	}
	for _, s := range settings {
		if strings.EqualFold(s.Section, "credential") || strings.EqualFold(s.Key, "extraheader") ||
			userInfo().MatchString(s.Subsection) || userInfo().MatchString(s.Value) {
			return true
		}
	}
	return false
}

// gitPatchable are the subcommands that print patches when asked (-p).
var gitPatchable = nameSet("log whatchanged reflog show diff diff-tree diff-index diff-files")

// gitValued are the options whose next word is their value
// (programs.txt's git-valued).
var gitValued = sync.OnceValue(func() map[string][]string { return tableMap("git-valued") })

// gitRead judges a reading subcommand: what it prints, and whether
// secrets could be in it.
func gitRead(c SimpleCommand, dir, sub string, kind gitContent, rest []Word, r roResult) roResult {
	patch, noPatch := false, false
	var ops, afterDash []Word   // operands: revisions and paths
	var named []string          // files whose content alone is printed: rev:path, -L ...:path
	var namedTop, tips []string // named as paths from the repository's top; the revisions of rev:path
	cached, noIndex, untracked, dashdash, patternGiven := false, false, false, false, false
	blameRevs := slices.ContainsFunc(rest, func(a Word) bool { return a.Value == "--reverse" }) // blame: revisions beyond the operands
	in := func(kind, v string) bool {
		return slices.Contains(gitValued()[kind+sub], v) || slices.Contains(gitValued()[kind+"*"], v)
	}
	for k := 0; k < len(rest); k++ {
		a := rest[k]
		v := a.Value
		if dashdash {
			afterDash = append(afterDash, a)
			continue
		}
		switch {
		case v == "--":
			dashdash = true
			continue
		case !strings.HasPrefix(v, "-") || v == "-":
			ops = append(ops, a)
			continue
		}
		name, val, eq := strings.Cut(v, "=")
		switch {
		case slices.Contains(gitNoPatch, v) || strings.HasPrefix(v, "--stat") || strings.HasPrefix(v, "--dirstat"):
			noPatch = true
		case name == "--cached" || name == "--staged":
			cached = true
		case name == "--no-index":
			noIndex = true
		case name == "--untracked":
			untracked = true
		case sub == "status" && (v == "-v" || v == "-vv" || v == "--verbose"):
			patch = true
		case strings.HasPrefix(v, "-L") && gitPatchable.has(sub):
			// -L start,end:FILE prints the history of FILE only.
			l := strings.TrimPrefix(strings.TrimPrefix(v, "-L"), "=")
			if l == "" && k+1 < len(rest) {
				k++
				l = rest[k].Value
			}
			if i := strings.LastIndexByte(l, ':'); i >= 0 && l[i+1:] != "" {
				named = append(named, l[i+1:])
				namedTop = append(namedTop, gitTopPath(dir, l[i+1:], false))
				r.names = append(r.names, Word{Value: l[i+1:], Known: true})
			}
			patch = true
			continue
		case in("path:", name):
			if eq {
				r.paths = append(r.paths, Word{Value: val, Known: true})
			} else if k+1 < len(rest) {
				k++
				r.paths = append(r.paths, rest[k])
			}
			patternGiven = patternGiven || name == "-f"
			blameRevs = blameRevs || (sub == "blame" && name == "-S")
			continue
		case in("", name):
			patternGiven = patternGiven || name == "-e"
			if eq {
				r.names = append(r.names, Word{Value: val, Known: true})
			} else if k+1 < len(rest) {
				k++
				r.names = append(r.names, rest[k])
			}
			continue
		case eq:
			r.names = append(r.names, Word{Value: val, Known: true})
		}
		if gitPatchable.has(sub) && gitPatchWord(v) {
			patch = true
		}
	}
	if sub == "grep" && !patternGiven && len(ops) > 0 {
		ops = ops[1:] // the pattern
	}
	// rev:path names a file in a tree (git show HEAD:.env): its content
	// only. Operands that exist on disk are paths; the rest revisions.
	var revs, paths []Word
	for _, o := range ops {
		if p, ok := gitRevPath(o.Value); ok {
			r.names = append(r.names, Word{Value: p, Known: true})
			if p != "" {
				named = append(named, p)
				namedTop = append(namedTop, gitTopPath(dir, p, true))
				if rev, _, _ := strings.Cut(o.Value, ":"); rev != "" {
					tips = append(tips, rev)
				}
			}
			continue
		}
		if abs := resolveIn(dir, o.Value); abs != "" {
			if _, err := os.Lstat(abs); err == nil {
				paths = append(paths, o)
				continue
			}
		}
		revs = append(revs, o)
	}
	paths = append(paths, afterDash...)
	// Every path and revision is also a name (git log -- .env), and a
	// path is a read (git diff --no-index /outside/file /dev/null).
	r.names = append(r.names, paths...)
	r.names = append(r.names, revs...)
	r.paths = append(r.paths, paths...)

	var prints bool
	switch kind {
	case gitPatch:
		prints = patch || !noPatch
	case gitMeta:
		prints = patch
	case gitGrep:
		prints = true
	case gitObject:
		prints = slices.ContainsFunc(rest, func(a Word) bool {
			return slices.Contains([]string{"-p", "blob", "tree", "commit", "tag", "--textconv", "--filters"}, a.Value)
		})
		if slices.ContainsFunc(rest, func(a Word) bool { return strings.HasPrefix(a.Value, "--batch") && a.Value != "--batch-check" }) {
			prints = true
			revs = append(revs, Word{Value: "(objects named on stdin)", Known: true})
		}
	case gitFileName:
		// blame FILE prints FILE as it is, and its name is screened;
		// blame REV FILE prints it as it was at REV, under any name it
		// had then.
		file := paths
		if len(file) == 0 && len(revs) > 0 {
			file, revs = revs[len(revs)-1:], revs[:len(revs)-1]
		}
		if len(file) > 0 && (len(revs) > 0 || blameRevs) {
			r.histFiles = gitHistFiles(dir, nil, file, revs, tips, rest)
		}
		return r
	}
	if !prints {
		return r
	}
	if noIndex || (sub == "diff" && gitDirOf(dir) == "") {
		// Files on disk, named or under named folders: the paths are
		// checked as reads, folders as a search.
		r.search = true
		return r
	}
	limited := len(named) > 0 && len(revs) == 0 && len(paths) == 0
	if len(paths) > 0 {
		limited = true
		for _, p := range paths {
			abs := resolveIn(dir, p.Value)
			fi, err := os.Stat(abs)
			if abs == "" || err != nil || !fi.Mode().IsRegular() || isSecret(abs) || strings.ContainsAny(p.Value, "*?[") || strings.HasPrefix(p.Value, ":") {
				limited = false
			}
		}
	}
	objects := true
	switch sub {
	case "diff":
		objects = len(revs) > 0 || cached
	case "diff-files":
		objects = false
	case "grep":
		objects = len(revs) > 0
		r.search = untracked // untracked files on disk too
	}
	switch {
	case limited:
		if objects {
			r.histFiles = gitHistFiles(dir, namedTop, paths, revs, tips, rest)
		}
	case objects:
		r.asks = append(r.asks, "prints file contents from git's history, where committed secrets may be; "+
			"limit it to files (-- FILE) or print names only (--stat)")
		r.history = true
	default:
		r.index, r.tree = dir, paths // the work tree or the index: tracked files only (gitTreeItems)
	}
	return r
}

// gitWalksUnlisted are options that make git walk commits the refs and
// the command's revisions do not name.
var gitWalksUnlisted = []string{"-g", "--reflog", "--walk-reflogs", "--stdin", "--alternate-refs"}

// gitHistFiles are the files a history read limited to named files
// prints: named (from the repository's top) and paths (from dir), walked
// from revs and tips.
func gitHistFiles(dir string, named []string, paths, revs []Word, tips []string, rest []Word) []histFile {
	root := repoRoot(dir)
	if root == "" {
		return nil // no repository: git prints nothing from a history
	}
	for _, rv := range revs {
		tips = append(tips, gitTips(rv.Value)...)
	}
	unknown := ""
	for _, a := range rest {
		if slices.Contains(gitWalksUnlisted, a.Value) {
			unknown = "with " + a.Value + " it walks commits godwit cannot list"
		}
	}
	all := slices.Clone(named)
	for _, p := range paths {
		all = append(all, gitTopPath(dir, p.Value, false))
	}
	var out []histFile
	for _, n := range all {
		if n == "" {
			continue
		}
		out = append(out, histFile{root: root, path: n, tips: tips, unknown: unknown})
	}
	return out
}

// gitTips are the commits a revision walks from, with what it excludes
// included too: HEAD~1..HEAD prints patches of HEAD whose old side is
// HEAD~1's, so the renames before HEAD~1 count (A..B, A...B, ^A, A^!,
// A^@, A^-N are each both ends, as plain commits).
func gitTips(v string) []string {
	var out []string
	for _, part := range strings.Split(strings.ReplaceAll(v, "...", ".."), "..") {
		part = strings.TrimPrefix(part, "^")
		if i := strings.LastIndex(part, "^"); i > 0 && (part[i+1:] == "!" || part[i+1:] == "@" || strings.HasPrefix(part[i+1:], "-")) {
			part = part[:i]
		}
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

// gitTopPath is p as a path from the top of the repository dir is in:
// a tree path (HEAD:p) is one already unless it starts with ./ or ../;
// a pathspec is relative to dir. "" when it is outside the repository.
func gitTopPath(dir, p string, tree bool) string {
	if tree && !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") {
		return filepath.ToSlash(filepath.Clean(p))
	}
	root := repoRoot(dir)
	abs := p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(dir, p)
	}
	abs = filepath.Join(kernelPath(filepath.Dir(abs)), filepath.Base(abs))
	rel, err := filepath.Rel(root, abs)
	if root == "" || err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// gitRevPath is the path of git's REV:PATH, :PATH and :N:PATH (a stage
// of the index) names; ok is false for a word that is none of them (or
// :/TEXT, a commit found by its message).
func gitRevPath(v string) (string, bool) {
	rev, p, ok := strings.Cut(v, ":")
	switch {
	case !ok || strings.HasPrefix(v, ":/"):
		return "", false
	case rev == "" && len(p) >= 2 && p[0] >= '0' && p[0] <= '3' && p[1] == ':':
		return p[2:], true // :0:.env is .env in stage 0
	}
	return p, true
}

// repoRoot is the folder holding the .git of the repository dir is in;
// "" when there is none.
func repoRoot(dir string) string {
	r, _ := gitconfig.FindRepo(dir)
	return r.WorkTree
}

// gitHistoryPrinters are git subcommands, not on the read-only list,
// that print or pack file contents from git's objects.
var gitHistoryPrinters = map[string]bool{"archive": true, "format-patch": true, "fast-export": true, "bundle": true}

// gitTreeItems are what a git command prints that path rules must see:
// tracked files (the index) that a rule names, or, where it prints
// from git's history, the fact that they cannot be listed.
func (p *Policy) gitTreeItems(toolName string, c SimpleCommand, ro roResult) []item {
	var out []item
	if ro.history {
		out = append(out, item{kind: kindTool, level: levelRead, what: "runs `" + render(c.Words) + "`",
			unlisted: "it prints file contents from git's history, where files a path rule names may be"})
	}
	if p.gitVar != "" && (ro.history || ro.index != "" || len(ro.histFiles) > 0) {
		out = append(out, item{kind: kindTool, level: levelRead, what: "runs `" + render(c.Words) + "`",
			unlisted: "godwit's environment sets " + p.gitVar + ", so git prints files of a repository other than the one godwit lists"})
	}
	if ro.index == "" {
		return out
	}
	names, err := indexNames(p.hostPath, ro.index)
	if why := indexSecrets(names, err); why != "" {
		out = append(out, item{kind: kindPath, level: levelSensitive, what: "runs `" + render(c.Words) + "`, which prints tracked files' contents, and git's index " + why})
	}
	if !p.pathRules(toolName) {
		return out
	}
	root := repoRoot(ro.index)
	if err != nil {
		out = append(out, item{kind: kindTool, level: levelRead, what: "runs `" + render(c.Words) + "`",
			unlisted: "it prints tracked files, and git's index cannot be read to list them"})
		return out
	}
	var limits []string
	for _, w := range ro.tree {
		abs := ""
		if w.Literal() {
			abs = resolveIn(ro.index, w.Value)
		}
		if abs == "" {
			limits = nil
			break
		}
		limits = append(limits, abs)
	}
	for _, n := range names {
		abs := filepath.Join(root, filepath.FromSlash(n))
		if len(limits) > 0 && !slices.ContainsFunc(limits, func(l string) bool { return within(l, abs) }) {
			continue
		}
		if p.pathRuled(toolName, abs) {
			it := p.pathItem(toolName, abs, false)
			it.what = "runs `" + render(c.Words) + "`, which prints tracked files, " + p.rel(abs) + " among them"
			out = append(out, it)
			if len(out) >= 3 {
				break
			}
		}
	}
	return out
}

// gitDirOf is the git folder of the repository dir is in, following a
// .git file (worktrees, submodules); "" when there is none.
func gitDirOf(dir string) string {
	r, _ := gitconfig.FindRepo(dir)
	return r.GitDir
}

// indexSecrets says why an index that names names (err when it could
// not be read) may hold a secrets file ("" when it names none).
func indexSecrets(names []string, err error) string {
	if err != nil {
		return "could not be read to check for secrets files (" + err.Error() + ")"
	}
	for _, n := range names {
		if isSecret(n) {
			return "tracks " + n + ", a secrets file"
		}
	}
	return ""
}

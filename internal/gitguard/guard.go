package gitguard

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/atomicfile"
	"github.com/godwit/godwit/internal/gitconfig"
)

// Options configure a Guard.
type Options struct {
	// Workspace is the folder commands run in; the repository holding it
	// (found as git finds it, from there up) is guarded.
	Workspace string
	// Home is the user's home folder, for ~/.gitconfig and "~/" in
	// paths; "" takes os.UserHomeDir.
	Home string
	// Getenv reads the user's environment, where git finds its config
	// files (gitconfig.Files); nil means os.Getenv.
	Getenv func(string) string
	// MaxBytes bounds the content kept to restore from; 0 means 16 MiB.
	// A file past it is still watched, but a change to it can only be
	// reported.
	MaxBytes int64
	Logger   *slog.Logger
}

// DefaultMaxBytes is Options.MaxBytes when zero.
const DefaultMaxBytes = 16 << 20

// Guard fingerprints a repository's control files and restores them.
// It is safe for concurrent use.
type Guard struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	base    map[string]entry  // the state the user left, by absolute path
	dirs    map[string]string // the folders of base's paths, as they resolved then
	pending []Change          // restores made by Poll, not yet reported to the model
	// unresolved is set while a change could not be undone: until it is,
	// nothing is taken as the user's, and every check reports it again.
	unresolved bool
}

// Change is one restore (or a change that could not be undone).
type Change struct {
	// Path is where: relative to the workspace when inside it, with ~ for
	// the home folder.
	Path string
	// What happened: "added", "changed", "deleted", "mode changed",
	// "replaced", or for config files the keys ("core.hooksPath set").
	What string
	// Restored is false when the change could not be undone (the file
	// was too large to keep, or the write failed).
	Restored bool
	// Err says why it could not be undone.
	Err string
}

// New returns a Guard with the current state as the user's.
func New(opts Options) *Guard {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Home == "" {
		opts.Home, _ = os.UserHomeDir()
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	g := &Guard{opts: opts, log: opts.Logger}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	g.setBase(g.scan(nil))
	return g
}

// setBase takes base as the user's state, and notes where its folders
// lead: a restore writes only through folders that still lead there, so
// a command cannot replace .git by a link and have godwit write its old
// files elsewhere.
func (g *Guard) setBase(base map[string]entry) {
	g.base = base
	g.dirs = map[string]string{}
	for p := range base {
		d := filepath.Dir(p)
		if _, ok := g.dirs[d]; !ok {
			g.dirs[d], _ = filepath.EvalSymlinks(d)
		}
	}
}

// put restores e at p, or deletes p when e is missing, inside p's
// folder as the user's state had it (openDir): a command that swaps the
// folder for a link while godwit writes cannot carry the write, the
// delete or the temporary file elsewhere.
func (g *Guard) put(p string, e entry) error {
	dir, err := g.openDir(filepath.Dir(p))
	if err != nil {
		return err
	}
	defer dir.Close()
	return writeEntry(dir, filepath.Base(p), e)
}

// openDir opens the folder d where the user's state had it resolve (a
// folder it did not name must not lead through a link), checked, once
// open, to be that folder (dirName), so a link swapped in on the way
// fails. A missing folder is made in its own checked parent.
func (g *Guard) openDir(d string) (*os.Root, error) {
	want, ok := g.dirs[d]
	if !ok || want == "" {
		want = filepath.Clean(d)
	}
	r, err := os.OpenRoot(want)
	if errors.Is(err, fs.ErrNotExist) && filepath.Dir(d) != d {
		parent, perr := g.openDir(filepath.Dir(d))
		if perr != nil {
			return nil, perr
		}
		err = parent.Mkdir(filepath.Base(d), 0o755)
		if err == nil {
			r, err = parent.OpenRoot(filepath.Base(d))
		}
		parent.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("its folder cannot be opened: %w", err)
	}
	got, err := dirName(r, d)
	if err == nil && got != want {
		err = fmt.Errorf("its folder now leads to %s, not %s", got, want)
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Accept takes the current state as the user's: call it when nothing
// godwit started has run since the last check, so that a change is the
// user's own.
//
// While a change a command made could not be undone, Accept checks
// instead, so that it is not taken as the user's, and keeps what it
// finds for the next Check to report.
func (g *Guard) Accept() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.unresolved {
		g.pending = append(g.pending, g.checkLocked()...)
		return
	}
	g.setBase(g.scan(g.base))
}

// Check compares the control files with the user's state and restores
// what changed, except config changes that only touch safe keys, which
// become part of the state. It returns what it restored, and what Poll
// restored since the last Check.
func (g *Guard) Check() []Change {
	g.mu.Lock()
	defer g.mu.Unlock()
	changes := append(g.pending, g.checkLocked()...)
	g.pending = nil
	return changes
}

// Poll is Check for a background job's run: what it restores is logged
// at once and kept for the next Check to report.
func (g *Guard) Poll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	cs := g.checkLocked()
	if len(cs) > 0 {
		g.log.Warn("gitguard: " + Summary(cs))
		g.pending = append(g.pending, cs...)
	}
}

func (g *Guard) checkLocked() []Change {
	cur := g.scan(g.base)
	if sameStamps(g.base, cur) {
		g.unresolved = false
		return nil
	}
	var out []Change
	paths := unionKeys(g.base, cur)
	// Deepest first, so an added folder's contents go before it; restores
	// run in the second pass, shallowest first.
	slices.SortFunc(paths, func(a, b string) int { return strings.Compare(b, a) })
	var restore []string
	acted := map[string]bool{} // new paths deleted or cleaned: not the user's
	for _, p := range paths {
		b, inBase := g.base[p]
		c, inCur := cur[p]
		if !inCur {
			c = stat(p, b.cfg, b, g.opts.MaxBytes) // a path the current layout no longer names
		}
		if b.same(c) {
			continue
		}
		switch {
		case !inBase && g.underRoot(p):
			// Added inside a guarded folder (a new hook): delete it.
			acted[p] = true
			out = append(out, g.change(p, "added", g.put(p, entry{})))
		case !inBase:
			// A new git dir (git init, git submodule add): it keeps its
			// sample hooks and the safe part of its config.
			if ch, ok := g.sanitizeNew(p, c); ok {
				acted[p] = true
				out = append(out, ch)
			}
		case b.cfg && (b.kind == kindFile && b.data != nil || b.kind == kindMissing) && c.kind == kindFile && c.data != nil:
			// A config file changed, or one git reads was created: judged
			// setting by setting against what it was (nothing).
			before, ok1 := parseConfig(b.data)
			after, ok2 := parseConfig(c.data)
			keys := unsafeChanges(before, after)
			if ok1 && ok2 && len(keys) == 0 {
				g.base[p] = c // only safe keys changed: the user's state now includes them
				continue
			}
			what := "changed (it no longer parses)"
			switch {
			case b.kind == kindMissing && ok2:
				what = "added, setting " + strings.Join(keys, ", ")
			case b.kind == kindMissing:
				what = "added"
			case ok1 && ok2:
				what = strings.Join(keys, ", ") + " changed"
			}
			out = append(out, g.change(p, what, g.put(p, b)))
		default:
			restore = append(restore, p)
		}
	}
	slices.Sort(restore)
	for _, p := range restore {
		b := g.base[p]
		c := stat(p, b.cfg, b, g.opts.MaxBytes)
		out = append(out, g.change(p, describe(b, c), g.put(p, b)))
	}
	// Take the new files this check judged and left (a new repository's)
	// into the state, if they did not change since; keep the user's for
	// everything restored. A path deleted or cleaned here, or new since
	// the scan (a job writing a hook again as soon as it is deleted), is
	// judged again at the next check, not taken as the user's.
	// What is the same as the user's state takes its new stat (a restored
	// file's, a folder whose entries came and went), so the next check's
	// fast path holds.
	after := g.scan(g.base)
	added := false
	for p, e := range after {
		b, ok := g.base[p]
		switch {
		case !ok:
			if c, judged := cur[p]; judged && !acted[p] && c.same(e) {
				g.base[p] = e
				added = true
			}
		case b.same(e):
			g.base[p] = e
		}
	}
	if added {
		g.setBase(g.base)
	}
	g.unresolved = false
	for _, ch := range out {
		if ch.Restored {
			continue
		}
		g.unresolved = true
		g.log.Warn("gitguard: could not restore", "path", ch.Path, "err", ch.Err)
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// underRoot reports whether p lies inside a folder of the user's state.
func (g *Guard) underRoot(p string) bool {
	e, ok := g.base[filepath.Dir(p)]
	return ok && e.kind == kindDir
}

// sanitizeNew applies the rules for a repository a command created to
// one of its files: a hook that is not a sample is deleted, a config
// loses its unsafe keys. Other new paths are taken as they are.
func (g *Guard) sanitizeNew(p string, c entry) (Change, bool) {
	switch {
	case !c.repo:
		return Change{}, false // a folder or file of the project's, named only by a setting just undone
	case c.cfg && c.kind == kindFile && c.data != nil:
		clean, dropped, ok := withoutUnsafe(c.data)
		if !ok {
			return g.change(p, "created and does not parse", errors.New("remove it yourself")), true
		}
		if len(dropped) == 0 {
			return Change{}, false
		}
		e := c
		e.data = clean
		if e.data == nil {
			// Nothing safe left: an empty file, not "no content kept",
			// which failed the restore and left the unsafe keys in place
			// (a core.hooksPath a command wrote then named a folder
			// outside, whose files the guard then undid as hooks).
			e.data = []byte{}
		}
		return g.change(p, "created with "+strings.Join(dropped, ", ")+" (removed)", g.put(p, e)), true
	case c.hook && c.kind != kindDir && !strings.HasSuffix(p, ".sample"):
		return g.change(p, "added", g.put(p, entry{})), true
	}
	return Change{}, false
}

func (g *Guard) change(p, what string, err error) Change {
	ch := Change{Path: g.show(p), What: what, Restored: err == nil}
	if err != nil {
		ch.Err = err.Error()
	}
	return ch
}

// show renders p for the user and the model.
func (g *Guard) show(p string) string {
	if r, err := filepath.Rel(g.opts.Workspace, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	if h := g.opts.Home; h != "" {
		if r, err := filepath.Rel(h, p); err == nil && !strings.HasPrefix(r, "..") {
			return "~/" + filepath.ToSlash(r)
		}
	}
	return p
}

// describe names what a command did to a path that is restored.
func describe(b, c entry) string {
	switch {
	case b.kind == kindMissing:
		return "added"
	case c.kind == kindMissing:
		return "deleted"
	case b.kind != c.kind:
		return "replaced"
	case b.kind == kindFile && bytes.Equal(b.data, c.data) && b.mode != c.mode:
		return "mode changed"
	default:
		return "changed"
	}
}

// Summary is one line for the user: what was restored and why.
func Summary(cs []Change) string {
	var parts []string
	for _, c := range cs {
		s := c.Path + " (" + c.What
		if !c.Restored {
			s += "; COULD NOT RESTORE: " + c.Err
		}
		parts = append(parts, s+")")
	}
	return "restored git hooks/config a command changed: " + strings.Join(parts, ", ") +
		". Git runs hooks and these settings outside the sandbox, so only the user may change them."
}

// Note is the same for the model, with what to do instead.
func Note(cs []Change) string {
	return "[godwit " + Summary(cs) + " Do not try again; if the change is needed, ask the user to make it.]"
}

// scan fingerprints every control file now; prev supplies the content of
// files whose stat did not change.
func (g *Guard) scan(prev map[string]entry) map[string]entry {
	out := map[string]entry{}
	add := func(p string, cfg, repo bool) (entry, bool) {
		if _, done := out[p]; done {
			return entry{}, false
		}
		e := stat(p, cfg, prev[p], g.opts.MaxBytes)
		e.repo = repo
		out[p] = e
		return e, true
	}
	var configs []string // in git's order of precedence, lowest first
	addConfig := func(p string) {
		if e, fresh := add(p, true, false); fresh && e.kind == kindFile {
			configs = append(configs, p)
		}
	}
	addRepoConfig := func(p string) {
		if e, fresh := add(p, true, true); fresh && e.kind == kindFile {
			configs = append(configs, p)
		}
	}
	home := g.opts.Home
	// The files git reads (a relative GIT_CONFIG_GLOBAL taken from the
	// workspace), then the rest of the repository's: other worktrees'
	// and submodules' config, which their own commands read.
	lookup := func(k string) (string, bool) {
		if k == "HOME" && home != "" {
			return home, true
		}
		v := g.opts.Getenv(k)
		return v, v != ""
	}
	files, _ := gitconfig.Files(g.opts.Workspace, lookup)
	hooksPath := ""
	for _, f := range files {
		switch f.Scope {
		case gitconfig.System: // read for core.hooksPath, never written
			if sys := stat(f.Path, false, entry{}, g.opts.MaxBytes); sys.kind == kindFile {
				if s, ok := settingsOf(f.Path, sys); ok {
					hooksPath = lastValue(s, "core", "hookspath")
				}
			}
		case gitconfig.Global:
			addConfig(f.Path)
		default:
			addRepoConfig(f.Path)
		}
	}
	// The repository git works in there: GIT_DIR's, when the user's
	// environment sets it, whose hooks then run.
	r, ok, _ := gitconfig.Discover(g.opts.Workspace, lookup)
	if ok && r.WorkTree == "" {
		r.WorkTree = g.opts.Workspace // a bare repository's hooksPath is relative to where git runs
	}
	if ok {
		if r.DotGit != r.GitDir {
			add(r.DotGit, false, false) // the "gitdir:" file of a worktree or submodule
		}
		for _, d := range gitDirs(r) {
			addRepoConfig(filepath.Join(d, "config"))
			addRepoConfig(filepath.Join(d, "config.worktree"))
			g.addTree(out, prev, filepath.Join(d, "hooks"), true)
		}
		for _, p := range worktreeConfigs(r) {
			addRepoConfig(p)
		}
	}
	// Included files, as far as they nest; then the hooks folder the
	// effective core.hooksPath names (the system config counts for it).
	for i := 0; i < len(configs) && i < 100; i++ {
		s, ok := settingsOf(configs[i], out[configs[i]])
		if !ok {
			continue
		}
		for _, inc := range gitconfig.Includes(s, configs[i], home) {
			addConfig(inc)
		}
		if v := lastValue(s, "core", "hookspath"); v != "" {
			hooksPath = v
		}
	}
	if hooksPath != "" && ok {
		dir := expandHome(hooksPath, home, r.WorkTree)
		if within(dir, g.opts.Workspace) {
			// core.hooksPath names the workspace itself or a folder above
			// it: guarding that would undo every command's work.
			g.log.Debug("gitguard: core.hooksPath names the workspace or a folder above it; its hooks are not guarded", "hooksPath", dir)
		} else {
			g.addTree(out, prev, dir, false)
			if filepath.Base(dir) == "_" && !within(filepath.Dir(dir), g.opts.Workspace) {
				g.addTree(out, prev, filepath.Dir(dir), false) // husky's wrappers run ../HOOK
			}
		}
	}
	if ok {
		// Hook managers' own files, which their hooks run at the next
		// commit whether or not core.hooksPath names them yet.
		g.addTree(out, prev, filepath.Join(r.WorkTree, ".husky"), false)
		for _, name := range managerFiles() {
			add(filepath.Join(r.WorkTree, name), false, false)
		}
	}
	return out
}

// managerFiles are the files hook managers read when a hook runs, at the
// top of the work tree: pre-commit's config, overcommit's, and
// lefthook's under every name lefthook looks for (and in .config/).
var managerFiles = sync.OnceValue(func() []string {
	out := []string{".pre-commit-config.yaml", ".pre-commit-config.yml", ".overcommit.yml"}
	for _, dir := range []string{"", ".config"} {
		for _, dot := range []string{"", "."} {
			for _, local := range []string{"", "-local"} {
				for _, ext := range []string{"yml", "yaml", "toml", "json", "jsonc"} {
					out = append(out, filepath.Join(dir, dot+"lefthook"+local+"."+ext))
				}
			}
		}
	}
	return out
})

// settingsOf parses a config file as a scan found it.
func settingsOf(p string, e entry) ([]gitconfig.Setting, bool) {
	data := e.data
	if data == nil && e.kind == kindFile {
		data, _ = os.ReadFile(p) // over the bytes kept to restore from
	}
	return parseConfig(data)
}

// within reports whether p is dir or lies below it.
func within(dir, p string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// addTree fingerprints a hooks folder and what is in it: everything
// below a git dir's hooks (inGit), only the entries themselves in the
// folder core.hooksPath names, since git runs nothing else from there and
// the folder is often part of the project (.husky).
func (g *Guard) addTree(out, prev map[string]entry, root string, inGit bool) {
	if _, done := out[root]; done {
		return
	}
	e := stat(root, false, prev[root], g.opts.MaxBytes)
	e.hook, e.repo = inGit, inGit
	out[root] = e
	if e.kind != kindDir {
		return
	}
	n := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if p == root {
			return nil
		}
		if err != nil {
			return nil
		}
		if n++; n > maxTreeEntries {
			return fs.SkipAll
		}
		e := stat(p, false, prev[p], g.opts.MaxBytes)
		e.hook, e.repo = inGit, inGit
		out[p] = e
		if d.IsDir() && !inGit {
			return fs.SkipDir
		}
		return nil
	})
	if n > maxTreeEntries {
		g.log.Warn("gitguard: a hooks folder holds too many entries; only the first, and those named as git's hooks, are guarded", "folder", root, "max", maxTreeEntries)
	}
	// The hooks git (and husky's wrappers, by the same names) runs from
	// the folder are guarded whatever the walk reached: a repository
	// padding .husky with files that sort first pushed pre-commit past
	// the bound, and a command then changed it unrestored.
	for _, name := range hookNames {
		p := filepath.Join(root, name)
		if _, done := out[p]; done {
			continue
		}
		e := stat(p, false, prev[p], g.opts.MaxBytes)
		e.hook, e.repo = inGit, inGit
		out[p] = e
	}
}

// maxTreeEntries bounds the entries of one hooks folder.
const maxTreeEntries = 2000

// hookNames are the hooks git runs, by githooks(5).
var hookNames = []string{
	"applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
	"prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge",
	"pre-push", "pre-receive", "update", "proc-receive", "post-receive", "post-update",
	"reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
	"fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit",
	"post-index-change",
}

// dirName is the path of the folder r holds: the kernel's name for it
// (/proc/self/fd, on Linux), else d as it resolves now, which leaves a
// swap between this check and the write to the root (an os.Root still
// keeps it from following a link out of the folder it opened).
func dirName(r *os.Root, d string) (string, error) {
	f, err := r.Open(".")
	if err != nil {
		return "", err
	}
	defer f.Close()
	if got, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err == nil {
		return got, nil
	}
	return filepath.EvalSymlinks(d)
}

// writeEntry puts e back at name in dir: a file's content and mode
// (through a temporary file renamed over it), a folder, a symbolic
// link, or nothing. A link at name is replaced, never followed.
func writeEntry(dir *os.Root, name string, e entry) error {
	cur, err := dir.Lstat(name)
	exists := err == nil
	switch e.kind {
	case kindMissing:
		return dir.RemoveAll(name)
	case kindDir:
		if exists && !cur.IsDir() {
			if err := dir.Remove(name); err != nil {
				return err
			}
			exists = false
		}
		if !exists {
			if err := dir.Mkdir(name, e.mode.Perm()); err != nil {
				return err
			}
		}
		return dir.Chmod(name, e.mode)
	case kindSymlink:
		if exists {
			if err := dir.RemoveAll(name); err != nil {
				return err
			}
		}
		return dir.Symlink(e.link, name)
	case kindFile:
		if e.data == nil {
			return fmt.Errorf("larger than the %d bytes kept to restore from", DefaultMaxBytes)
		}
		if exists && cur.IsDir() {
			if err := dir.RemoveAll(name); err != nil {
				return err
			}
		}
		return atomicfile.WriteFile(name, e.data, e.mode, atomicfile.InRoot(dir))
	}
	return fmt.Errorf("cannot restore a %s", e.kind)
}

func unionKeys(a, b map[string]entry) []string {
	out := make([]string, 0, len(a)+len(b))
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

// sameStamps is the fast path: the same paths with the same stats.
func sameStamps(a, b map[string]entry) bool {
	if len(a) != len(b) {
		return false
	}
	for k, e := range a {
		f, ok := b[k]
		if !ok || e.kind != f.kind || e.sig != f.sig || e.mode != f.mode || e.link != f.link {
			return false
		}
	}
	return true
}

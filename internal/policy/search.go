package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// A recursive search may print a secrets file it does not name, so the
// folders it searches are walked as it walks them; listers (find, ls -R,
// tree, du, fd) are checked for links out of the workspace only.

// maxSearchEntries bounds the walk that looks for secrets files under a
// searched folder; a bigger folder asks, as it cannot be cleared.
const maxSearchEntries = 20000

// scopeOf says whether a command searches folders recursively, whether
// it skips hidden files (rg and ag do by default; .env is hidden), and
// whether it follows symlinks out of them.
func scopeOf(ro roResult) (recursive, skipsHidden, follow bool) {
	recursive = ro.search || ro.eff&effRecurse != 0 || ro.lists
	skipsHidden = ro.search && ro.skipsHidden && ro.eff&effHidden == 0
	return recursive, skipsHidden, ro.eff&effFollow != 0
}

// errSearchTooBig stops a walk past maxSearchEntries.
var errSearchTooBig = errors.New("too many files")

// walkOpts say what a walk looks for.
type walkOpts struct {
	tool       string
	skipHidden bool // the program passes over dot files and folders
	follow     bool // it follows symlinks
	namesOnly  bool // it prints names, not contents: only links out matter
}

// walkFound is what a walk found, up to 3 of each.
type walkFound struct {
	secrets []string // secrets files, or links to them, relative to the folder
	out     []string // links out of the workspace the program follows, and hard links, relative
	ruled   []string // files or folders a deny or ask path rule names, absolute
}

func (f walkFound) full(rules bool) bool {
	return len(f.secrets)+len(f.out) >= 3 && (!rules || len(f.ruled) >= 3)
}

// searchWalk walks dir the way a recursive reader would. .git is
// skipped (git's own files), and so are hidden entries when the program
// skips them; followed links are walked into, each real folder once.
func (p *Policy) searchWalk(dir string, o walkOpts) (walkFound, error) {
	var f walkFound
	rules := !o.namesOnly && p.pathRules(o.tool)
	n := 0
	seen := map[string]bool{}
	var walk func(real, show string) error
	check := func(real, show string) {
		if o.namesOnly {
			return
		}
		if isSecret(show) || isSecret(real) {
			if filepath.Base(real) != filepath.Base(show) {
				show += " (a link to " + p.rel(real) + ")"
			}
			note(&f.secrets, show)
		}
		if rules && p.pathRuled(o.tool, real) {
			note(&f.ruled, real)
		}
	}
	walk = func(real, show string) error {
		if seen[real] {
			return nil
		}
		seen[real] = true
		ents, err := os.ReadDir(real)
		if err != nil {
			if show == "" {
				return err
			}
			return nil // unreadable below: the search cannot read it either
		}
		for _, e := range ents {
			if f.full(rules) {
				return filepath.SkipAll
			}
			if n++; n > maxSearchEntries {
				return errSearchTooBig
			}
			name := e.Name()
			if o.skipHidden && strings.HasPrefix(name, ".") {
				continue
			}
			abs, rel := filepath.Join(real, name), filepath.ToSlash(filepath.Join(show, name))
			switch t := e.Type(); {
			case t&os.ModeSymlink != 0:
				if !o.follow {
					if !o.namesOnly && isSecret(rel) {
						note(&f.secrets, rel) // named as one: checked whatever it leads to
					}
					continue
				}
				target := kernelPath(abs)
				switch p.where(target) {
				case placeDevice:
					continue
				case placeInside:
				default:
					note(&f.out, rel)
					if rules && p.ruledUnder(o.tool, target) {
						note(&f.ruled, target)
					}
					continue
				}
				fi, err := os.Stat(target)
				switch {
				case err != nil: // a dangling link: nothing to read
				case fi.IsDir():
					if err := walk(target, rel); err != nil {
						return err
					}
				default:
					check(target, rel)
				}
			case t.IsDir():
				if name == ".git" {
					continue
				}
				if rules && p.pathRuled(o.tool, abs) {
					note(&f.ruled, abs)
					continue
				}
				if err := walk(abs, rel); err != nil {
					return err
				}
			default:
				if !o.namesOnly && t.IsRegular() && hardLinked(abs) {
					note(&f.out, rel+" (a hard link)")
					if rules { // another of its names may be one a path rule names
						note(&f.ruled, abs)
					}
				}
				check(abs, rel)
			}
		}
		return nil
	}
	err := walk(dir, "")
	if errors.Is(err, filepath.SkipAll) {
		err = nil
	}
	return f, err
}

// note adds v to a list of what a walk found, up to 3.
func note(list *[]string, v string) {
	if len(*list) < 3 {
		*list = append(*list, v)
	}
}

// ruledUnder reports whether a deny or ask rule naming absolute paths
// (/abs/** or ~/x/**) may name something under dir: a search of dir
// reads there.
func (p *Policy) ruledUnder(toolName, dir string) bool {
	for _, r := range p.guards() {
		if r.Path == "" || !r.matchTool(toolName) {
			continue
		}
		pat := r.Path
		switch {
		case strings.HasPrefix(pat, "~/") && p.home != "":
			pat = filepath.ToSlash(p.home) + pat[1:]
		case !strings.HasPrefix(pat, "/"):
			continue
		}
		base, _ := doublestar.SplitPattern(pat)
		base = filepath.FromSlash(base)
		if within(dir, base) || within(base, dir) {
			return true
		}
	}
	return false
}

// searchItems are what a recursive search reads that its words do not
// say: the secrets files, links out and files a path rule names under
// the folders it searches (dirs, or where it runs when it names none).
func (p *Policy) searchItems(toolName string, c SimpleCommand, ro roResult) []item {
	recursive, skipHidden, follow := scopeOf(ro)
	if !recursive || (ro.lists && !follow) {
		return nil
	}
	var dirs []string
	for _, w := range ro.paths {
		if w.Literal() {
			if abs := resolveIn(c.Dir, w.Value); abs != "" {
				dirs = append(dirs, abs)
			}
		}
	}
	if len(ro.paths) == 0 && c.Dir != "" {
		dirs = []string{c.Dir}
	}
	o := walkOpts{tool: toolName, skipHidden: skipHidden, follow: follow, namesOnly: ro.lists}
	var out []item
	for _, dir := range dirs {
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			continue // files are judged as paths
		}
		if p.where(dir) != placeInside {
			// An outside folder is judged as a path (it asks); a rule
			// naming something under it holds too.
			if !ro.lists && p.ruledUnder(toolName, dir) {
				it := p.pathItem(toolName, dir, false)
				it.unlisted = "it searches " + dir + ", where a path rule names files"
				out = append(out, it)
			}
			continue
		}
		show := p.rel(dir)
		if show == "." {
			show = "the workspace"
		}
		found, err := p.searchWalk(dir, o)
		switch {
		case errors.Is(err, errSearchTooBig):
			out = append(out, item{kind: kindPath, abs: dir, level: levelSensitive,
				what:     fmt.Sprintf("searches %s, too big (over %d entries) to check for secrets files; the grep tool passes over them", show, maxSearchEntries),
				unlisted: "the folder is too big to check"})
			continue
		case err != nil:
			continue
		}
		verb := "searches"
		if ro.lists {
			verb = "lists"
		}
		if len(found.secrets) > 0 || len(found.out) > 0 {
			what := fmt.Sprintf("%s %s, which holds secrets files (%s), so it may print them; the grep tool passes over them", verb, show, strings.Join(found.secrets, ", "))
			first := found.secrets
			switch {
			case len(found.secrets) == 0:
				what, first = fmt.Sprintf("%s %s and follows links out of the workspace (%s), a read outside it", verb, show, strings.Join(found.out, ", ")), found.out
			case len(found.out) > 0:
				what += fmt.Sprintf(", and follows links out of the workspace (%s)", strings.Join(found.out, ", "))
			}
			out = append(out, item{kind: kindPath, abs: filepath.Join(dir, filepath.FromSlash(first[0])), level: levelSensitive, what: what})
		}
		for _, abs := range found.ruled {
			it := p.pathItem(toolName, abs, false)
			it.what = fmt.Sprintf("%s %s, which holds %s", verb, show, p.rel(abs))
			out = append(out, it)
		}
	}
	return out
}

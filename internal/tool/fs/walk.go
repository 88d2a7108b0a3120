package fs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"path"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/tool"
)

// query is one grep call's parameters.
type query struct {
	t        *walking // the workspace and Options.Hidden
	m        *matcher
	ctx      int
	limit    int
	glob     string
	noIgnore bool
}

// fileResult is what searching one file found.
type fileResult struct {
	idx     int
	rel     string
	lines   []outLine
	matches int
	binary  bool
	large   bool
	linked  bool // another hard link: passed over as a secret is
	err     error
}

type stats struct {
	files   int      // files searched
	binary  int      // binary files skipped
	large   []string // files over maxGrepFile
	secrets []string // secret (.env, keys) and hard-linked files a folder walk passed over
	ruled   []string // files and folders the user's rules deny or ask about, passed over
	more    bool     // the limit was reached: more matches may exist
}

type job struct {
	idx      int
	abs, rel string
}

// walk searches the tree under abs: one goroutine walks folders in sorted
// order and numbers the files, twice the cores of workers search them, and
// the collector keeps results in walk order, stopping once the files
// before the frontier hold limit matches. So the output is the first
// limit matches in path order, whatever the timing.
func (q *query) walk(ctx context.Context, abs, rel, top string) ([]fileResult, stats, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	jobs := make(chan job, 256)
	results := make(chan fileResult, 256)
	var walkErr error
	w := &walker{q: q, ctx: ctx, jobs: jobs}
	walked := make(chan struct{})
	go func() {
		defer close(walked)
		defer close(jobs)
		walkErr = w.dir(abs, rel, loadIgnore(top, abs, q.noIgnore), true)
	}()
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for j := range jobs {
				if ctx.Err() != nil {
					results <- fileResult{idx: j.idx, rel: j.rel, err: ctx.Err()}
					continue
				}
				r := q.searchFile(j.abs, j.rel, &buf)
				r.idx = j.idx
				results <- r
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	var (
		st      stats
		pending = map[int]fileResult{}
		ordered []fileResult
		next    int
		total   int
		done    bool
	)
	for r := range results {
		if done {
			continue // drain
		}
		pending[r.idx] = r
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			switch {
			case r.err != nil:
				// A file that vanished or cannot be read is skipped.
				continue
			case r.binary:
				st.binary++
				continue
			case r.large:
				st.large = append(st.large, r.rel)
				continue
			case r.linked:
				st.secrets = append(st.secrets, r.rel)
				continue
			}
			st.files++
			if r.matches > 0 {
				ordered = append(ordered, r)
				total += r.matches
			}
			if total >= q.limit {
				done, st.more = true, true
				stop()
				break
			}
		}
	}
	<-walked
	st.secrets, st.ruled = append(w.secrets, st.secrets...), w.ruled
	if err := context.Cause(ctx); err != nil && !done {
		return nil, st, err
	}
	if walkErr != nil && !errors.Is(walkErr, context.Canceled) {
		return nil, st, walkErr
	}
	return ordered, st, nil
}

type walker struct {
	q       *query
	ctx     context.Context
	jobs    chan<- job
	n       int
	secrets []string // read by walk once the walking goroutine is done
	ruled   []string // likewise
}

func (w *walker) dir(abs, rel string, rules *ignoreRules, top bool) error {
	ents, _, err := w.q.t.entries(abs, rel, rules, w.q.glob, false)
	if err != nil {
		if top {
			return relErr(err, rel)
		}
		return nil // an unreadable sub-folder is skipped, as rg does
	}
	for _, e := range ents {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		childAbs, childRel := filepath.Join(abs, e.Name()), path.Join(rel, e.Name())
		switch {
		case e.ruled:
			w.ruled = append(w.ruled, childRel)
		case e.IsDir():
			if err := w.dir(childAbs, childRel, rules.child(e.Name()), false); err != nil {
				return err
			}
		case tool.IsSecret(childRel):
			// A secret file is passed over, and named; reading it by name
			// goes through the approval policy.
			w.secrets = append(w.secrets, childRel)
		default:
			select {
			case w.jobs <- job{idx: w.n, abs: childAbs, rel: childRel}:
				w.n++
			case <-w.ctx.Done():
				return w.ctx.Err()
			}
		}
	}
	return nil
}

// entry is one entry of a folder a walk shows; ruled marks one
// Options.Hidden names, which the walk passes over and names.
type entry struct {
	iofs.DirEntry
	ruled bool
}

// entries reads the folder abs (rel as the model knows it), sorted by
// name, as a walk sees it: without .git and without what the gitignore
// rules leave out (counted in ignored). file_list (list) keeps
// node_modules and vendor, shown unexpanded; grep also passes over
// links, special files and the files glob does not name.
func (w *walking) entries(abs, rel string, rules *ignoreRules, glob string, list bool) (kept []entry, ignored int, err error) {
	ents, err := w.ws.ReadDir(abs)
	if err != nil {
		return nil, 0, err
	}
	for _, e := range ents {
		name, isDir := e.Name(), e.IsDir()
		switch {
		case isDir && name == ".git":
			continue
		case list && isDir && skippedDirs[name]:
		case rules.ignored(name, isDir):
			ignored++
			continue
		case !list && !isDir && (!e.Type().IsRegular() || !globMatch(glob, path.Join(rel, name))):
			continue
		}
		kept = append(kept, entry{e, w.hides(filepath.Join(abs, name))})
	}
	return kept, ignored, nil
}

// searchFile reads one file into *buf (reused across files) and searches
// it.
func (q *query) searchFile(abs, rel string, buf *[]byte) (r fileResult) {
	r.rel = rel
	defer func() {
		if v := recover(); v != nil {
			r.err = fmt.Errorf("fs: grep %s: panic: %v", rel, v)
		}
	}()
	b, err := q.t.ws.ReadInto(abs, *buf, maxGrepFile)
	*buf = b
	switch {
	case errors.Is(err, workspace.ErrTooLarge):
		r.large = true
		return r
	case errors.Is(err, workspace.ErrLinked):
		r.linked = true
		return r
	case err != nil:
		r.err = err
		return r
	}
	if looksBinaryFast(b[:min(len(b), sniffLen)]) {
		r.binary = true
		return r
	}
	r.lines, r.matches = q.m.search(b, q.ctx, q.limit)
	return r
}

// looksBinaryFast is the NUL check only: grep must be cheap per file, and
// invalid UTF-8 never makes a regexp fail.
func looksBinaryFast(head []byte) bool { return bytes.IndexByte(head, 0) >= 0 }

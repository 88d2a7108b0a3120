package fs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/tool"
)

// query is one grep call's parameters.
type query struct {
	ws       *workspace.Workspace
	m        *matcher
	ctx      int
	limit    int
	glob     string
	noIgnore bool
	// hides reports paths a folder walk passes over (Options.Hidden).
	hides func(abs string) bool
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
	secrets []string // secret files (.env, keys) a folder walk passed over
	linked  []string // files with another hard link, passed over likewise
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
				st.linked = append(st.linked, r.rel)
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
	st.secrets, st.ruled = append(w.secrets, st.linked...), w.ruled
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
	ents, err := w.q.ws.ReadDir(abs)
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
		name := e.Name()
		childRel := name
		if rel != "." {
			childRel = rel + "/" + name
		}
		switch t := e.Type(); {
		case t.IsDir():
			if rules.ignored(name, true) || w.ruledOut(filepath.Join(abs, name), childRel) {
				continue
			}
			if err := w.dir(filepath.Join(abs, name), childRel, rules.child(name), false); err != nil {
				return err
			}
		case t.IsRegular():
			if rules.ignored(name, false) || !globMatch(w.q.glob, childRel) || w.ruledOut(filepath.Join(abs, name), childRel) {
				continue
			}
			// A secret file is passed over, and named; reading it by name
			// goes through the approval policy.
			if tool.IsSecret(childRel) {
				w.secrets = append(w.secrets, childRel)
				continue
			}
			select {
			case w.jobs <- job{idx: w.n, abs: filepath.Join(abs, name), rel: childRel}:
				w.n++
			case <-w.ctx.Done():
				return w.ctx.Err()
			}
		}
		// Symlinks and special files are not followed.
	}
	return nil
}

// ruledOut reports a path the user's rules deny or ask about, which the
// walk passes over and the result names.
func (w *walker) ruledOut(abs, rel string) bool {
	if !w.q.hides(abs) {
		return false
	}
	w.ruled = append(w.ruled, rel)
	return true
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
	b, err := q.ws.ReadInto(abs, *buf, maxGrepFile)
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

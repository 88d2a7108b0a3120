package eval

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/godwit/godwit/internal/wiring"
)

// Options configure Run.
type Options struct {
	// Model is "provider/model" for a real model; empty runs each task's
	// scripted model.
	Model string
	// Home is GODWIT_HOME, read (never written) for the real model's
	// provider configuration. Every run has a home of its own.
	Home   string
	Getenv func(string) string
	// Runs is how many times each task runs (default 1).
	Runs int
	// Jobs is how many runs go at once (default 1).
	Jobs  int
	Shard Shard
	// Version is godwit's version, recorded in the results.
	Version string
	// Keep keeps the workspace of every failed run (its path is in the
	// result); otherwise workspaces are removed.
	Keep bool
	// TempDir holds the runs' workspaces; empty means os.TempDir().
	TempDir string
	// Progress, when set, is called as runs start and finish, one call at
	// a time.
	Progress func(Progress)
	Logger   *slog.Logger
}

// Progress reports the runner's state. The first report comes before any
// run starts (Done 0, nothing Running or Finished).
type Progress struct {
	Done, Total int
	// Jobs is how many runs go at once.
	Jobs int
	// Running names the runs under way ("basic/go-add#1").
	Running []string
	// Finished is the run that just ended; nil when one just started.
	Finished *RunResult
}

// Shard selects every Count-th task, starting at the Index-th (1-based),
// of the tasks sorted by key; the zero Shard selects all.
type Shard struct{ Index, Count int }

// ParseShard reads "I/N".
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(i)
	b, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 1 || a > b {
		return Shard{}, fmt.Errorf("eval: shard %q: write I/N with 1 <= I <= N, e.g. --shard 2/4", s)
	}
	return Shard{Index: a, Count: b}, nil
}

func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Select returns this shard's tasks; tasks must be sorted by Key (as
// LoadTasks returns them) so every shard agrees on the split.
func (s Shard) Select(tasks []*Task) []*Task {
	if s.Count <= 1 {
		return tasks
	}
	var out []*Task
	for i, t := range tasks {
		if i%s.Count == s.Index-1 {
			out = append(out, t)
		}
	}
	return out
}

// Run runs every task of the shard opts.Runs times, opts.Jobs at once,
// each in a fresh workspace with the real engine, and returns the results
// in task order. It fails only when nothing can run (a task without a
// scripted model and no --model, a provider that cannot be built); a run
// that fails is a result.
func Run(ctx context.Context, tasks []*Task, opts Options) (*Results, error) {
	if opts.Runs <= 0 {
		opts.Runs = 1
	}
	if opts.Jobs <= 0 {
		opts.Jobs = 1
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	tasks = opts.Shard.Select(tasks)
	var real *wiring.ProviderModel
	if opts.Model != "" {
		var err error
		if real, err = newRealModel(opts); err != nil {
			return nil, err
		}
	} else {
		var missing []string
		for _, t := range tasks {
			if t.Model == nil {
				missing = append(missing, t.Key())
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("eval: %s %s no scripted model (model: in task.yaml); run with --model provider/model, or add one",
				strings.Join(missing, ", "), plural(len(missing), "has", "have"))
		}
	}

	type unit struct {
		task *Task
		run  int
	}
	var units []unit
	for _, t := range tasks {
		for r := 1; r <= opts.Runs; r++ {
			units = append(units, unit{t, r})
		}
	}
	res := &Results{Format: FormatVersion, Godwit: opts.Version, Scripted: real == nil, RunsPerTask: opts.Runs,
		Shard: opts.Shard.String(), Started: time.Now()}
	res.Model = "fake/scripted"
	if real != nil {
		res.Model = real.ProviderName + "/" + real.Model.ID
	}
	out := make([]RunResult, len(units))
	root, err := makeRoot(opts.TempDir)
	if err != nil {
		return nil, err
	}
	defer os.Remove(root) // only when empty: kept workspaces stay

	var mu sync.Mutex // guards done, running and Progress calls
	done := 0
	running := map[string]bool{}
	report := func(name string, fin *RunResult) {
		if opts.Progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if fin == nil {
			running[name] = true
		} else {
			delete(running, name)
			done++
		}
		opts.Progress(Progress{Done: done, Total: len(units), Jobs: opts.Jobs, Running: slices.Collect(maps.Keys(running)), Finished: fin})
	}
	if opts.Progress != nil {
		opts.Progress(Progress{Total: len(units), Jobs: opts.Jobs})
	}

	sem := make(chan struct{}, opts.Jobs) // a slot per run under way
	var wg sync.WaitGroup
	for i, u := range units {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			name := fmt.Sprintf("%s#%d", u.task.Key(), u.run)
			report(name, nil)
			out[i] = runOne(ctx, root, u.task, u.run, opts, real)
			report(name, &out[i])
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	res.Runs = out
	res.WallMS = time.Since(res.Started).Milliseconds()
	res.SystemHash, res.ToolsHash = fingerprints(out)
	return res, nil
}

// makeRoot creates the folder of this invocation's workspaces, its name
// of fixed length (see runOne).
func makeRoot(dir string) (string, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	for {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("eval: %w", err)
		}
		p := filepath.Join(dir, "godwit-eval-"+hex.EncodeToString(b[:]))
		err := os.Mkdir(p, 0o755)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("eval: creating the folder for workspaces: %w", err)
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Failed reports whether any run failed.
func (r *Results) Failed() bool {
	return slices.ContainsFunc(r.Runs, func(run RunResult) bool { return !run.Pass })
}

package eval

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/godwit/godwit/internal/atomicfile"
)

// FormatVersion is the version of the results file format.
const FormatVersion = 1

// Results is a results file: every run of a suite (or of one shard), with
// what produced it.
type Results struct {
	Format int `json:"format"`
	// Godwit is the version of godwit that ran.
	Godwit string `json:"godwit"`
	// Model is "provider/model", or "fake/scripted" for scripted runs.
	Model    string `json:"model"`
	Scripted bool   `json:"scripted"`
	// RunsPerTask is --runs.
	RunsPerTask int `json:"runs_per_task"`
	// Shard is "I/N" for one shard's file; empty for a whole suite.
	Shard string `json:"shard,omitempty"`
	// SystemHash and ToolsHash fingerprint the system prompt (workspace
	// path replaced) and the tool table the model was sent; "mixed" when
	// runs differ.
	SystemHash string      `json:"system_hash"`
	ToolsHash  string      `json:"tools_hash"`
	Started    time.Time   `json:"started"`
	WallMS     int64       `json:"wall_ms"`
	Runs       []RunResult `json:"runs"`
}

// RunResult is one run of one task.
type RunResult struct {
	Task        string `json:"task"` // suite/id
	TaskVersion int    `json:"task_version"`
	Run         int    `json:"run"` // 1-based
	Model       string `json:"model"`
	SystemHash  string `json:"system_hash"`
	ToolsHash   string `json:"tools_hash"`

	Pass bool `json:"pass"`
	// Failures say which checks or limits failed, or how the run broke.
	Failures []string `json:"failures,omitempty"`
	// Broken: the eval itself failed (setup, building the engine), not
	// the agent; compare treats such a task as confounded.
	Broken bool `json:"broken,omitempty"`

	Turns int `json:"turns"`
	// Calls counts model calls, handoff calls included.
	Calls int `json:"calls"`
	// PromptTokens sums the requests' sizes as the engine counted them
	// (o200k); MaxRequestTokens is the largest.
	PromptTokens     int64 `json:"prompt_tokens"`
	MaxRequestTokens int   `json:"max_request_tokens"`
	// InputTokens, OutputTokens and CacheReadTokens are as the provider
	// reported them.
	InputTokens     int64   `json:"input_tokens"`
	OutputTokens    int64   `json:"output_tokens"`
	CacheReadTokens int64   `json:"cache_read_tokens,omitempty"`
	ToolCalls       int     `json:"tool_calls"`
	Resets          int     `json:"resets"`
	Compactions     int     `json:"compactions"`
	HandoffTokens   []int   `json:"handoff_tokens,omitempty"`
	Cost            float64 `json:"cost"`
	DurationMS      int64   `json:"duration_ms"`
	// Workspace is kept for a failed run with --keep.
	Workspace string `json:"workspace,omitempty"`
}

// TotalTokens is input plus output, as reported.
func (r RunResult) TotalTokens() int64 { return r.InputTokens + r.OutputTokens }

// ReadResults reads a results file.
func ReadResults(path string) (*Results, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	var r Results
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("eval: %s is not a results file (%v); write one with godwit eval run --out", path, err)
	}
	if r.Format != FormatVersion {
		return nil, fmt.Errorf("eval: %s has results format %d; this godwit reads format %d", path, r.Format, FormatVersion)
	}
	return &r, nil
}

// WriteResults writes r to path (indented JSON), through a temporary
// file so a reader never sees half a file.
func WriteResults(path string, r *Results) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	return nil
}

// Merge joins the results of shards into one set. The shards must come
// from one invocation's split: the same godwit, model and runs per task,
// and no task in two of them.
func Merge(parts ...*Results) (*Results, error) {
	if len(parts) == 0 {
		return nil, errors.New("eval: merge: no result files given")
	}
	first := parts[0]
	out := &Results{Format: FormatVersion, Godwit: first.Godwit, Model: first.Model, Scripted: first.Scripted,
		RunsPerTask: first.RunsPerTask, Started: first.Started}
	owner := map[string]int{}
	var errs []error
	for i, p := range parts {
		switch {
		case p.Godwit != first.Godwit:
			errs = append(errs, fmt.Errorf("eval: merge: part %d ran godwit %s, part 1 godwit %s; merge shards of one run only", i+1, p.Godwit, first.Godwit))
		case p.Model != first.Model:
			errs = append(errs, fmt.Errorf("eval: merge: part %d ran model %s, part 1 model %s; merge shards of one run only", i+1, p.Model, first.Model))
		case p.RunsPerTask != first.RunsPerTask:
			errs = append(errs, fmt.Errorf("eval: merge: part %d has %d runs per task, part 1 %d; merge shards of one run only", i+1, p.RunsPerTask, first.RunsPerTask))
		}
		if p.Started.Before(out.Started) {
			out.Started = p.Started
		}
		out.WallMS = max(out.WallMS, p.WallMS)
		for _, r := range p.Runs {
			if j, ok := owner[r.Task]; ok && j != i {
				errs = append(errs, fmt.Errorf("eval: merge: task %s is in parts %d and %d; were the shards split differently?", r.Task, j+1, i+1))
				continue
			}
			owner[r.Task] = i
			out.Runs = append(out.Runs, r)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	sortRuns(out.Runs)
	out.SystemHash, out.ToolsHash = fingerprints(out.Runs)
	return out, nil
}

func sortRuns(rs []RunResult) {
	slices.SortStableFunc(rs, func(a, b RunResult) int { return cmp.Or(strings.Compare(a.Task, b.Task), a.Run-b.Run) })
}

// fingerprints returns the runs' common hashes, "mixed" where they differ.
func fingerprints(rs []RunResult) (system, tools string) {
	for _, r := range rs {
		if r.Broken {
			continue
		}
		system = common(system, r.SystemHash)
		tools = common(tools, r.ToolsHash)
	}
	return system, tools
}

func common(acc, v string) string {
	switch {
	case acc == "":
		return v
	case acc != v:
		return "mixed"
	}
	return acc
}

// splitKey splits "suite/id".
func splitKey(key string) (suite, id string) {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

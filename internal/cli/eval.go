package cli

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/eval"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/wiring"
)

// NewCmdEval builds `godwit eval` and its subcommands.
func NewCmdEval(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Run eval suites, compare result sets, merge shards",
		Long: `Judge a change by evals, not by impression: run suites of tasks (folders
with a task.yaml) against the real engine, compare two result sets task by
task, and record the verdict in a ledger.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(NewCmdEvalRun(f, nil), NewCmdEvalCompare(f, nil), NewCmdEvalMerge(f, nil))
	return cmd
}

// EvalRunOptions are the inputs of `godwit eval run`: the runner's
// options, the task folders and the results file.
type EvalRunOptions struct {
	eval.Options
	IO   *IOStreams
	Dirs []string
	Out  string
}

// NewCmdEvalRun builds `godwit eval run`. runF replaces the real run in
// tests.
func NewCmdEvalRun(f *Factory, runF func(context.Context, *EvalRunOptions) error) *cobra.Command {
	opts := &EvalRunOptions{IO: f.IO, Options: eval.Options{Getenv: f.Getenv, Logger: f.Logger, Version: f.Version}}
	var shard string
	cmd := &cobra.Command{
		Use:   "run DIR... [flags]",
		Short: "Run eval tasks, each in a fresh workspace, and write the results",
		Long: `Run every task found under the folders given (a folder holding task.yaml is
a task), each run in a fresh temporary workspace and store with the real
engine. Without --model each task's scripted model answers; with it, the
real model does (its key must be set).

Exit status: 0 every run passed, 1 some run failed, 2 bad usage.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dirs = args
			switch {
			case opts.Runs < 1:
				return usageErrorf("--runs %d: run each task at least once", opts.Runs)
			case opts.Jobs < 1:
				return usageErrorf("--jobs %d: give 1 or more", opts.Jobs)
			}
			var err error
			if opts.Shard, err = eval.ParseShard(shard); err != nil {
				return &UsageError{Err: err}
			}
			return runWith(cmd, f, &opts.Home, opts, runF, runEvalRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Model, "model", "m", "", "provider/model to evaluate (default: each task's scripted model)")
	fl.IntVar(&opts.Runs, "runs", 1, "how many times to run each task")
	fl.IntVarP(&opts.Jobs, "jobs", "j", 1, "how many runs go at once")
	fl.StringVar(&shard, "shard", "", "run only shard I of N (I/N, e.g. 2/4); join the shards with eval merge")
	fl.StringVarP(&opts.Out, "out", "o", "eval-results.json", "write the results (JSON) here")
	fl.BoolVar(&opts.Keep, "keep", false, "keep the workspaces of failed runs")
	return cmd
}

func runEvalRun(ctx context.Context, opts *EvalRunOptions) error {
	tasks, err := eval.LoadTasks(opts.Dirs...)
	if err != nil {
		return err
	}
	opts.Progress = eval.NewProgress(opts.IO.ErrOut, opts.IO.ErrTTY)
	res, err := eval.Run(ctx, tasks, opts.Options)
	if err != nil {
		return err
	}
	if err := eval.WriteResults(opts.Out, res); err != nil {
		return err
	}
	recordEval(ctx, opts.Home, opts.Logger, func(st *store.Store) error { return eval.RecordRuns(ctx, st, res) })
	if err := eval.WriteSummary(opts.IO.Out, res); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "results: %s\n", opts.Out)
	if res.Failed() {
		return errSilent
	}
	return nil
}

// recordEval writes to the store under home; the files are the record
// that matters, so a store that cannot be opened is only a warning.
func recordEval(ctx context.Context, home string, log *slog.Logger, write func(*store.Store) error) {
	st, err := store.Open(ctx, wiring.DBPath(home))
	if err == nil {
		err = write(st)
		if cerr := st.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		log.Warn("eval: not recorded in the store", "err", err)
	}
}

// EvalCompareOptions are the inputs of `godwit eval compare`: the
// comparison's options (NameA and NameB the files) and where the verdict
// goes.
type EvalCompareOptions struct {
	eval.CompareOptions
	IO     *IOStreams
	Logger *slog.Logger
	Home   string
	Ledger string
	Now    func() time.Time
}

// NewCmdEvalCompare builds `godwit eval compare`.
func NewCmdEvalCompare(f *Factory, runF func(context.Context, *EvalCompareOptions) error) *cobra.Command {
	opts := &EvalCompareOptions{IO: f.IO, Logger: f.Logger, Now: f.Now}
	var bars []string
	cmd := &cobra.Command{
		Use:   "compare A B [flags]",
		Short: "Compare two result sets task by task and record the verdict",
		Long: `Line up two results files (A the baseline, B the change) by task and label
each task helped, hurt, no observed effect, or confounded (something other
than the change under test differs: model, task version, run count, or the
system prompt or tool table when --expect does not name them). Bars decide
the verdict, which is appended to the ledger and recorded in the store.

Bars: metric<=value, >=, < or >. Metrics: pass (points), calls, tokens,
prompt (tokens per call), cost, resets, time; a % value is relative to A.
Counts of tasks: helped, hurt, no_effect, confounded. Default: pass>=0.

Exit status: 0 the bars pass, 1 they do not, 2 bad usage.`,
		Example: `  godwit eval compare base.json new.json --bar "calls<=+5%" --bar "pass>=0" --why "shorter tool descriptions"`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			opts.NameA, opts.NameB = args[0], args[1]
			if opts.Bars, err = eval.ParseBars(bars); err != nil {
				return &UsageError{Err: err}
			}
			for _, e := range opts.Expect {
				if !slices.Contains([]string{eval.ExpectModel, eval.ExpectPrompt, eval.ExpectTools}, e) {
					return usageErrorf("--expect %q: name what the change under test alters: model, prompt or tools", e)
				}
			}
			if opts.Ledger == "" {
				home, err := f.Home()
				if err != nil {
					return err
				}
				opts.Ledger = filepath.Join(home, "eval-ledger.jsonl")
			}
			return runWith(cmd, f, &opts.Home, opts, runF, runEvalCompare)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&bars, "bar", nil, `a gate such as "calls<=+5%" or "pass>=0" (repeatable)`)
	fl.StringVar(&opts.Why, "why", "", "why the comparison is made (the change under test), for the ledger")
	fl.StringSliceVar(&opts.Expect, "expect", nil, "what the change under test alters and so may differ: model, prompt, tools")
	fl.Float64Var(&opts.Noise, "noise", eval.DefaultNoise, "the least change of tokens or calls, in percent, that counts as an effect")
	fl.StringVar(&opts.Ledger, "ledger", "", "append the verdict to this JSONL file (default $GODWIT_HOME/eval-ledger.jsonl)")
	return cmd
}

func runEvalCompare(ctx context.Context, opts *EvalCompareOptions) error {
	a, err := eval.ReadResults(opts.NameA)
	if err != nil {
		return err
	}
	b, err := eval.ReadResults(opts.NameB)
	if err != nil {
		return err
	}
	v := eval.Compare(a, b, opts.CompareOptions, opts.Now())
	if err := eval.WriteComparison(opts.IO.Out, v); err != nil {
		return err
	}
	if err := eval.AppendLedger(opts.Ledger, v); err != nil {
		return err
	}
	recordEval(ctx, opts.Home, opts.Logger, func(st *store.Store) error { return eval.RecordVerdict(ctx, st, v) })
	fmt.Fprintf(opts.IO.ErrOut, "verdict appended to %s\n", opts.Ledger)
	if !v.Pass {
		return errSilent
	}
	return nil
}

// EvalMergeOptions are the inputs of `godwit eval merge`.
type EvalMergeOptions struct {
	IO    *IOStreams
	Files []string
	Out   string
}

// NewCmdEvalMerge builds `godwit eval merge`.
func NewCmdEvalMerge(f *Factory, runF func(context.Context, *EvalMergeOptions) error) *cobra.Command {
	opts := &EvalMergeOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "merge FILE... --out FILE",
		Short: "Join the results files of shards into one",
		Long: `Join the results of a suite run in shards (eval run --shard I/N, on any
number of machines) into one results file, for compare.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			if opts.Out == "" {
				return usageErrorf("no --out: name the file to write the merged results to")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runEvalMerge(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Out, "out", "o", "", "write the merged results here")
	return cmd
}

func runEvalMerge(opts *EvalMergeOptions) error {
	var parts []*eval.Results
	for _, p := range opts.Files {
		r, err := eval.ReadResults(p)
		if err != nil {
			return err
		}
		parts = append(parts, r)
	}
	res, err := eval.Merge(parts...)
	if err != nil {
		return err
	}
	if err := eval.WriteResults(opts.Out, res); err != nil {
		return err
	}
	if err := eval.WriteSummary(opts.IO.Out, res); err != nil {
		return err
	}
	_, err = fmt.Fprintf(opts.IO.Out, "merged %d files into %s\n", len(parts), opts.Out)
	return err
}

package cli

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/eval"
	"github.com/godwit/godwit/internal/wiring"
)

func evalFactory(home string) (*Factory, *bytes.Buffer, *bytes.Buffer) {
	ios, _, out, errOut := fakeStreams()
	return &Factory{IO: ios, Version: "v-test", Logger: slog.New(slog.DiscardHandler),
		Now: func() time.Time { return time.Unix(1700000000, 0) },
		Getenv: func(k string) string {
			if k == "GODWIT_HOME" {
				return home
			}
			return ""
		}}, out, errOut
}

func TestEvalRunFlags(t *testing.T) {
	cases := []struct {
		args    string
		want    EvalRunOptions
		wantErr string
	}{
		{args: "evals/basic", want: EvalRunOptions{Dirs: []string{"evals/basic"}, Options: eval.Options{Runs: 1, Jobs: 1}, Out: "eval-results.json"}},
		{args: "a b --model x/y --runs 3 -j 2 --shard 1/2 -o r.json --keep",
			want: EvalRunOptions{Dirs: []string{"a", "b"}, Options: eval.Options{Model: "x/y", Runs: 3, Jobs: 2, Shard: eval.Shard{Index: 1, Count: 2}, Keep: true}, Out: "r.json"}},
		{args: "a --runs 0", wantErr: "--runs 0"},
		{args: "a --jobs 0", wantErr: "--jobs 0"},
		{args: "a --shard 3/2", wantErr: "I/N"},
		{args: "", wantErr: "requires at least 1 arg"},
	}
	for _, c := range cases {
		t.Run(c.args, func(t *testing.T) {
			f, _, _ := evalFactory("/h")
			var got *EvalRunOptions
			cmd := NewCmdEvalRun(f, func(_ context.Context, o *EvalRunOptions) error { got = o; return nil })
			cmd.SetArgs(strings.Fields(c.args))
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			err := cmd.Execute()
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Home != "/h" || got.Version != "v-test" {
				t.Errorf("home %q version %q", got.Home, got.Version)
			}
			g := *got
			g.IO, g.Getenv, g.Logger, g.Home, g.Version = nil, nil, nil, "", ""
			if !reflect.DeepEqual(g, c.want) {
				t.Errorf("options = %+v, want %+v", g, c.want)
			}
		})
	}
}

func TestEvalCompareAndMergeFlags(t *testing.T) {
	f, _, _ := evalFactory("/h")
	var got *EvalCompareOptions
	cmd := NewCmdEvalCompare(f, func(_ context.Context, o *EvalCompareOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"a.json", "b.json", "--bar", "calls<=+5%", "--bar", "pass>=0", "--why", "shorter prompt", "--expect", "prompt,tools"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.NameA != "a.json" || got.NameB != "b.json" || len(got.Bars) != 2 || got.Why != "shorter prompt" ||
		!reflect.DeepEqual(got.Expect, []string{"prompt", "tools"}) || got.Ledger != filepath.Join("/h", "eval-ledger.jsonl") || got.Noise != eval.DefaultNoise {
		t.Errorf("options = %+v", got)
	}
	for _, c := range []struct{ args, want string }{
		{"a b --bar calls=5", `bar "calls=5"`},
		{"a b --expect speed", `--expect "speed"`},
		{"a", "accepts 2 arg"},
	} {
		cmd := NewCmdEvalCompare(f, func(context.Context, *EvalCompareOptions) error { return nil })
		cmd.SetArgs(strings.Fields(c.args))
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		var ue *UsageError
		if err == nil || !strings.Contains(err.Error(), c.want) || (c.want[0] != 'a' && !errors.As(err, &ue)) {
			t.Errorf("%s: err = %v, want a usage error with %q", c.args, err, c.want)
		}
	}
	merge := NewCmdEvalMerge(f, func(context.Context, *EvalMergeOptions) error { return nil })
	merge.SetArgs([]string{"a.json"})
	if err := merge.Execute(); err == nil || !strings.Contains(err.Error(), "no --out") {
		t.Errorf("merge without --out: %v", err)
	}
}

const cliTask = `id: write-note
version: 1
turns: [write the note]
checks:
  files: [{path: note.txt, contains: [hello]}]
model:
  rules:
    - when: {user: write}
      call: [{file_write: {path: note.txt, content: "hello\n"}}]
    - when: {engine: ''}
      say: a note needs no tests
    - when: {tool: file_write}
      say: written
`

// The commands end to end: run (two shards), merge, compare, with the
// ledger file and the store written.
func TestEvalCommands(t *testing.T) {
	ctx := context.Background()
	home, dir := t.TempDir(), t.TempDir()
	for _, id := range []string{"a", "b"} {
		p := filepath.Join(dir, "suite", id)
		os.MkdirAll(p, 0o755)
		os.WriteFile(filepath.Join(p, "task.yaml"), []byte(strings.Replace(cliTask, "write-note", "note-"+id, 1)), 0o644)
	}
	exec := func(args ...string) (string, string, error) {
		f, out, errOut := evalFactory(home)
		cmd := NewCmdEval(f)
		cmd.SetArgs(args)
		err := cmd.ExecuteContext(ctx)
		return out.String(), errOut.String(), err
	}
	var shards []string
	for i := 1; i <= 2; i++ {
		p := filepath.Join(dir, "shard"+string(rune('0'+i))+".json")
		out, errOut, err := exec("run", filepath.Join(dir, "suite"), "--shard", string(rune('0'+i))+"/2", "--out", p)
		if err != nil {
			t.Fatalf("run shard %d: %v\n%s", i, err, errOut)
		}
		if !strings.Contains(out, "1/1 runs passed") || !strings.Contains(errOut, "eval: 1 run, 1 at once\n") || !strings.Contains(errOut, "[1/1] ok   suite/note-") {
			t.Errorf("run output:\n%s\n%s", out, errOut)
		}
		shards = append(shards, p)
	}
	merged := filepath.Join(dir, "all.json")
	out, _, err := exec(append(append([]string{"merge"}, shards...), "--out", merged)...)
	if err != nil || !strings.Contains(out, "2/2 runs passed") || !strings.Contains(out, "merged 2 files") {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	ledger := filepath.Join(dir, "ledger.jsonl")
	out, _, err = exec("compare", merged, merged, "--bar", "calls<=+5%", "--why", "same twice", "--ledger", ledger)
	if err != nil || !strings.Contains(out, "2 no observed effect") || !strings.Contains(out, "PASS") {
		t.Fatalf("compare: %v\n%s", err, out)
	}
	var v eval.Verdict
	data, err := os.ReadFile(ledger)
	if err == nil {
		err = json.Unmarshal(data, &v)
	}
	if err != nil || bytes.Count(data, []byte("\n")) != 1 || v.Why != "same twice" {
		t.Errorf("ledger: %v %s", err, data)
	}
	db, err := sql.Open("sqlite", wiring.DBPath(home))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var runs, verdicts, passed int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM eval_results WHERE suite = 'suite'),
		(SELECT count(*) FROM eval_verdicts), (SELECT count(*) FROM eval_verdicts WHERE passed)`).Scan(&runs, &verdicts, &passed); err != nil ||
		runs != 2 || verdicts != 1 || passed != 1 {
		t.Errorf("stored: %v, %d runs, %d verdicts (%d passed)", err, runs, verdicts, passed)
	}

	// A gate that fails fails the command, after printing the verdict.
	out, _, err = exec("compare", merged, merged, "--bar", "helped>=1", "--ledger", ledger)
	if !errors.Is(err, errSilent) || !strings.Contains(out, "FAIL") {
		t.Errorf("failing bar: %v\n%s", err, out)
	}
	// A failing run fails eval run.
	os.WriteFile(filepath.Join(dir, "suite", "a", "task.yaml"), []byte(strings.Replace(cliTask, "contains: [hello]", "contains: [goodbye]", 1)), 0o644)
	_, errOut, err := exec("run", filepath.Join(dir, "suite", "a"), "--out", filepath.Join(dir, "fail.json"))
	if !errors.Is(err, errSilent) || !strings.Contains(errOut, `file note.txt lacks "goodbye"`) {
		t.Errorf("failing run: %v\n%s", err, errOut)
	}
}

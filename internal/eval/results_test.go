package eval

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/store/storetest"
)

func TestResultsRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.json")
	r := results(runs("s/a", 2, 1, 3, 100))
	if err := WriteResults(path, r); err != nil {
		t.Fatal(err)
	}
	got, err := ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Runs) != 2 || got.Runs[1].Pass || got.SystemHash != "sys1" {
		t.Errorf("read back %+v", got)
	}

	for name, content := range map[string]string{
		"not json":   "hello",
		"old format": `{"format": 99}`,
	} {
		p := filepath.Join(t.TempDir(), "bad.json")
		os.WriteFile(p, []byte(content), 0o644)
		if _, err := ReadResults(p); err == nil {
			t.Errorf("%s: read without error", name)
		}
	}
	if _, err := ReadResults(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("missing file: no error")
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	shard := func(s string, rs ...[]RunResult) *Results {
		r := results(rs...)
		r.Shard, r.WallMS = s, 1000
		return r
	}
	one := shard("1/2", runs("s/b", 2, 2, 1, 1))
	two := shard("2/2", runs("s/a", 2, 1, 1, 1), runs("s/c", 2, 2, 1, 1))
	m, err := Merge(one, two)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range m.Runs {
		order = append(order, r.Task)
	}
	if strings.Join(order, " ") != "s/a s/a s/b s/b s/c s/c" || m.Shard != "" || m.WallMS != 1000 {
		t.Errorf("merged: %v shard %q wall %d", order, m.Shard, m.WallMS)
	}

	other := shard("2/2", runs("s/a", 2, 1, 1, 1))
	other.Model = "x/y"
	if _, err := Merge(one, other); err == nil || !strings.Contains(err.Error(), "ran model x/y") {
		t.Errorf("different models: %v", err)
	}
	dup := shard("2/2", runs("s/b", 2, 1, 1, 1))
	if _, err := Merge(one, dup); err == nil || !strings.Contains(err.Error(), "task s/b is in parts 1 and 2") {
		t.Errorf("a task in two shards: %v", err)
	}
	if _, err := Merge(); err == nil {
		t.Error("nothing to merge: no error")
	}
}

func TestShard(t *testing.T) {
	t.Parallel()
	var tasks []*Task
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		tasks = append(tasks, &Task{ID: id, Suite: "s"})
	}
	seen := map[string]int{}
	for i := 1; i <= 3; i++ {
		sh, err := ParseShard(strings.Join([]string{string(rune('0' + i)), "3"}, "/"))
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range sh.Select(tasks) {
			seen[task.ID]++
		}
	}
	if len(seen) != 5 {
		t.Errorf("shards cover %v", seen)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("task %s in %d shards", id, n)
		}
	}
	for _, bad := range []string{"0/3", "4/3", "1", "a/b", "1/0"} {
		if _, err := ParseShard(bad); err == nil || !strings.Contains(err.Error(), "I/N") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if sh, _ := ParseShard(""); len(sh.Select(tasks)) != 5 {
		t.Error("no shard must select every task")
	}
}

func TestLedgerAndStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	a, b := results(runs("s/x", 1, 1, 10, 1000)), results(runs("s/x", 1, 1, 10, 800))
	v := Compare(a, b, CompareOptions{NameA: "a.json", NameB: "b.json", Why: "shorter prompt"}, time.Unix(1700000000, 0))
	ledger := filepath.Join(dir, "sub", "ledger.jsonl")
	for i := 0; i < 2; i++ {
		if err := AppendLedger(ledger, v); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadLedger(ledger)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Why != "shorter prompt" || got[1].Tasks[0].Label != Helped || !got[1].Pass {
		t.Errorf("ledger = %+v", got)
	}
	data, _ := os.ReadFile(ledger)
	if n := bytes.Count(data, []byte("\n")); n != 2 {
		t.Errorf("%d lines; JSONL wants one verdict a line", n)
	}

	st := storetest.OpenAt(t, filepath.Join(dir, "godwit.db"))
	if err := RecordVerdict(ctx, st, v); err != nil {
		t.Fatal(err)
	}
	// Nothing in godwit reads the tables back: read them as a user would.
	db, err := sql.Open("sqlite", filepath.Join(dir, "godwit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var side, why, details string
	var passed bool
	if err := db.QueryRow(`SELECT a, why, passed, details FROM eval_verdicts`).Scan(&side, &why, &passed, &details); err != nil ||
		side != "a.json (fake/scripted, godwit v1)" || why != "shorter prompt" || !passed {
		t.Fatalf("stored verdict: %v %q %q %v", err, side, why, passed)
	}
	var back Verdict
	if err := json.Unmarshal([]byte(details), &back); err != nil || back.Counts[Helped] != 1 {
		t.Errorf("details: %v %+v", err, back.Counts)
	}

	if err := RecordRuns(ctx, st, b); err != nil {
		t.Fatal(err)
	}
	var name string
	var input int64
	if err := db.QueryRow(`SELECT name, passed, input_tokens FROM eval_results WHERE suite = 's'`).Scan(&name, &passed, &input); err != nil ||
		name != "x" || !passed || input != 800 {
		t.Errorf("stored run: %v %q %v %d", err, name, passed, input)
	}
}

func TestWriteSummaryAndProgress(t *testing.T) {
	t.Parallel()
	r := results(runs("basic/go-add", 2, 1, 5, 1500, func(r *RunResult) { r.Resets = 1; r.Cost = 0.01 }))
	r.Model, r.Godwit, r.WallMS = "fake/scripted", "v9", 2500
	var out bytes.Buffer
	if err := WriteSummary(&out, r); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"basic/go-add", "1/2", "1,500", "$0.0100", "50%", "1/2 runs passed; model fake/scripted, godwit v9, prompt sys1, tools tools1; wall 2.5s"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("summary lacks %q:\n%s", w, out.String())
		}
	}

	failed := &RunResult{Task: "s/t", Run: 1, Failures: []string{"file a changed"}, Workspace: "/tmp/ws"}
	passed := &RunResult{Task: "s/u", Run: 1, Pass: true}
	var plain, tty bytes.Buffer
	for _, p := range []Progress{{Total: 2, Jobs: 2}, {Done: 0, Total: 2, Running: []string{"s/t#1"}}, {Done: 1, Total: 2, Finished: failed}, {Done: 2, Total: 2, Finished: passed}} {
		NewProgress(&plain, false)(p)
		NewProgress(&tty, true)(p)
	}
	if want := "eval: 2 runs, 2 at once\n[1/2] FAIL s/t#1  0 calls  0 tokens  0 resets  0s\n    file a changed\n    workspace kept: /tmp/ws\n[2/2] ok   s/u#1"; !strings.HasPrefix(plain.String(), want) {
		t.Errorf("plain progress:\n%s\nwant prefix\n%s", plain.String(), want)
	}
	if s := tty.String(); !strings.HasPrefix(s, "eval: 2 runs, 2 at once\n") || !strings.Contains(s, "\r\033[K[............") || !strings.Contains(s, "FAIL s/t#1") || strings.Contains(s, "ok   s/u#1") || !strings.HasSuffix(s, "2/2\n") {
		t.Errorf("tty progress: %q", s)
	}
}

// ReadLedger reads every verdict of a ledger file, oldest first.
func ReadLedger(path string) ([]Verdict, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: ledger: %w", err)
	}
	var out []Verdict
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var v Verdict
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("eval: ledger %s: line %d: %w", path, len(out)+1, err)
		}
		out = append(out, v)
	}
	return out, nil
}

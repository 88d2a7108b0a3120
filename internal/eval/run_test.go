package eval

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/godwit/godwit/internal/peertest"
)

// The long-session suite must pass, all of it, with its scripted models
// and the real engine: this is the CI bar.
func TestLongSessionSuite(t *testing.T) {
	t.Parallel()
	tasks, err := LoadTasks("../../evals/long-session")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var progress []Progress
	res, err := Run(context.Background(), tasks, Options{Jobs: 2, Version: "test", Progress: func(p Progress) {
		mu.Lock()
		progress = append(progress, p)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != len(tasks) || res.Model != "fake/scripted" || !res.Scripted || res.Godwit != "test" {
		t.Fatalf("results: %d runs, model %s", len(res.Runs), res.Model)
	}
	if res.SystemHash == "" || res.SystemHash == "mixed" || res.ToolsHash == "" || res.ToolsHash == "mixed" {
		t.Errorf("fingerprints %q %q: every run sends the same prompt and tools once workspace paths are replaced", res.SystemHash, res.ToolsHash)
	}
	for _, r := range res.Runs {
		if !r.Pass {
			t.Errorf("%s failed:\n%s", r.Task, strings.Join(r.Failures, "\n"))
		}
		for _, h := range r.HandoffTokens {
			if h > 3000 {
				t.Errorf("%s: a handoff of %d tokens; the bar is 3000", r.Task, h)
			}
		}
		t.Logf("%s: %d turns, %d calls, %d resets (handoff tokens %v), %d compactions, largest request %d tokens",
			r.Task, r.Turns, r.Calls, r.Resets, r.HandoffTokens, r.Compactions, r.MaxRequestTokens)
	}
	if n := len(progress); n != 2*len(tasks)+1 || progress[0].Done != 0 || progress[0].Running != nil || progress[n-1].Done != len(tasks) {
		t.Errorf("%d progress reports, last %+v", n, progress[len(progress)-1])
	}
}

// The basic suite runs go test, python3 and node in each workspace.
func TestBasicSuite(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs go, python3 and node")
	}
	for _, cmd := range []string{"go", "python3", "node"} {
		if _, err := exec.LookPath(cmd); err != nil {
			peertest.Missing(t, "%s is not on PATH: the basic suite runs go, python3 and node; install them to run it (.ci/run does)", cmd)
		}
	}
	tasks, err := LoadTasks("../../evals/basic")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), tasks, Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if !r.Pass {
			t.Errorf("%s failed:\n%s", r.Task, strings.Join(r.Failures, "\n"))
		}
	}
}

// Runs that must fail do, each for its own reason: the checks and limits
// bite on the real engine.
func TestRunFailures(t *testing.T) {
	t.Parallel()
	const pad = `
setup:
  script: for i in 1 2 3; do awk 'BEGIN { for (n = 1; n <= 120; n++) print "padding line", n }' > big$i.txt; done
`
	const model = `
model:
  rules:
    - when: {handoff: true}
      handoff: {task: go on}
    - when: {user: '[Rr]ule:'}
      say: ok
    - when: {user: 'read (\S+)'}
      call: [{file_read: {path: '{{index .Match 1}}'}}]
    - when: {tool: file_read}
      say: read it
`
	turns := "turns:\n  - 'Rule: be brief.'\n  - read big1.txt\n  - {say: 'New rule: be verbose.', reset: true}\n  - {say: read big2.txt, reset: true}\n"
	cases := []struct {
		name, yaml string
		broken     bool
		want       string
	}{
		{"supersession never proposed", "id: t1\nversion: 1\n" + pad + turns +
			"checks: {request: {superseded: [{turn: 1, by_turn: 3}]}}\n" + model, false, "is not marked superseded"},
		{"check command fails", "id: t2\nversion: 1\n" + pad + turns + "checks: {commands: ['test -f nothing.txt']}\n" + model, false, "command `test -f nothing.txt`: exit status 1"},
		{"no rule for a request", "id: t3\nversion: 1\n" + pad + "turns: [hello there]\nchecks: {min_resets: 1}\n" + model, false, "turn 1: agent: model call failed: eval: task neg/t3: no model rule answers request"},
		{"token limit", "id: t4\nversion: 1\n" + pad + turns + "limits: {tokens: 100}\nchecks: {min_resets: 1}\n" + model, false, "tokens used; the limit is 100"},
		{"too few resets", "id: t5\nversion: 1\n" + pad + turns + "checks: {min_resets: 5}\n" + model, false, "2 segment resets; the task needs at least 5"},
		{"timeout", "id: t7\nversion: 1\nturns: [wait]\nlimits: {timeout: 1s}\nchecks: {min_resets: 1}\n" +
			"model: {rules: [{when: {user: wait}, call: [{shell_exec: {command: sleep 20}}]}, {when: {tool: shell_exec}, say: done}]}\n",
			false, "turn 1: the run passed its timeout of 1s (limits.timeout)"},
		{"setup breaks", "id: t6\nversion: 1\nsetup: {script: exit 7}\n" + turns + "checks: {min_resets: 1}\n" + model, true, "setup: script: exit status 7"},
	}
	root := t.TempDir()
	var tasks []*Task
	want := map[string]int{}
	for i, c := range cases {
		task, err := LoadTask(writeTask(t, root, "neg", c.name, c.yaml, nil))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		tasks = append(tasks, task)
		want[task.Key()] = i
	}
	keep := t.TempDir()
	res, err := Run(context.Background(), tasks, Options{Jobs: 2, Keep: true, TempDir: keep})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		c := cases[want[r.Task]]
		if r.Pass || r.Broken != c.broken || !strings.Contains(strings.Join(r.Failures, "\n"), c.want) {
			t.Errorf("%s: pass %v broken %v failures %q; want a failure with %q", c.name, r.Pass, r.Broken, r.Failures, c.want)
		}
		if _, err := os.Stat(r.Workspace); r.Workspace == "" || err != nil {
			t.Errorf("%s: failed run's workspace not kept (%q)", c.name, r.Workspace)
		}
	}
}

func TestRunNeedsAModel(t *testing.T) {
	t.Parallel()
	task, err := LoadTask(writeTask(t, t.TempDir(), "s", "t", "id: t\nversion: 1\nturns: [hi]\nchecks: {min_resets: 1}\n", nil))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), []*Task{task}, Options{})
	if err == nil || !strings.Contains(err.Error(), "s/t has no scripted model") || !strings.Contains(err.Error(), "--model") {
		t.Errorf("err = %v", err)
	}
	_, err = Run(context.Background(), []*Task{task}, Options{Model: "nosuch/model", Home: t.TempDir(), Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), `unknown provider "nosuch"`) {
		t.Errorf("unknown provider: err = %v", err)
	}
}

// Runs of one task are independent: the same task run three times gives
// three results with the same numbers (the scripted model is
// deterministic).
func TestRunRuns(t *testing.T) {
	t.Parallel()
	y := "id: r\nversion: 1\nturns: [write it]\nchecks: {files: [{path: out.txt, contains: [hello]}]}\n" +
		"model:\n  rules:\n    - when: {user: write}\n      call: [{file_write: {path: out.txt, content: hello}}]\n" +
		"    - when: {engine: ''}\n      say: nothing to test\n    - when: {tool: file_write}\n      say: done\n"
	task, err := LoadTask(writeTask(t, t.TempDir(), "s", "r", y, nil))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), []*Task{task}, Options{Runs: 3, Jobs: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 3 || res.RunsPerTask != 3 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	for i, r := range res.Runs {
		first := res.Runs[0]
		if !r.Pass || r.Run != i+1 || r.Calls != first.Calls || r.PromptTokens != first.PromptTokens ||
			r.SystemHash != first.SystemHash || r.ToolsHash != first.ToolsHash {
			t.Errorf("run %d: %+v\nrun 1: %+v", i+1, r, first)
		}
	}
}

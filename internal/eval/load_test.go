package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeTask writes task.yaml (and extra files) into a new folder
// <tmp>/<suite>/<name> and returns the folder.
func writeTask(t *testing.T, root, suite, name, yaml string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(root, suite, name)
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, TaskFile), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const goodTask = `
id: good-one
version: 2
description: every feature once
setup:
  copy: repo
  files:
    - {path: pad.txt, text: "x\n", repeat: 3}
  script: echo hi > hi.txt
turns:
  - first message
  - say: second message
    reset: true
verify: "true"
limits: {steps: 5, tokens: 1000, request_tokens: 900, context_window: 16000, timeout: 90s}
checks:
  commands: ["test -f hi.txt"]
  answer: {contains: [done], not_contains: [sorry], regexp: ['^d']}
  request:
    contains: [first message]
    active: [first message]
    superseded: [{turn: 1, by_turn: 2}]
    topics: [{name: A, contains: [x]}]
    untrusted: [IGNORE]
  files:
    - {path: pad.txt, unchanged: true}
    - {path: gone.txt, absent: true}
  min_resets: 1
model:
  rules:
    - when: {handoff: true}
      handoff:
        task: go on
        decisions: ['~ {{ref "first"}} by {{ref "second"}}', {each: '^Topic (\w+)', line: '@ {{.Entry}} {{index .Match 1}}'}]
    - when: {user: 'message', turn: [1, 2]}
      call:
        - file_read: {path: pad.txt}
    - say: done
`

func TestLoadTaskGood(t *testing.T) {
	t.Parallel()
	dir := writeTask(t, t.TempDir(), "suite", "good", goodTask, map[string]string{"repo/a.txt": "a"})
	task, err := LoadTask(dir)
	if err != nil {
		t.Fatal(err)
	}
	if task.Key() != "suite/good-one" || task.Version != 2 {
		t.Errorf("key %s version %d", task.Key(), task.Version)
	}
	if len(task.Turns) != 2 || task.Turns[0] != (Turn{Say: "first message"}) || task.Turns[1] != (Turn{Say: "second message", Reset: true}) {
		t.Errorf("turns = %+v", task.Turns)
	}
	if got := task.Setup.Files[0].Content(); got != "x\nx\nx\n" {
		t.Errorf("repeat: %q", got)
	}
	if time.Duration(task.Limits.Timeout) != 90*time.Second || task.Limits.ContextWindow != 16000 {
		t.Errorf("limits = %+v", task.Limits)
	}
	if c := task.Checks.Request; len(c.Superseded) != 1 || c.Superseded[0] != (Supersession{Turn: 1, ByTurn: 2}) || c.Topics[0].Name != "A" {
		t.Errorf("request checks = %+v", c)
	}
	rules := task.Model.Rules
	if len(rules) != 3 || rules[1].Call[0].Tool != "file_read" || rules[1].Call[0].Args["path"] != "pad.txt" || len(rules[1].When.Turn) != 2 {
		t.Errorf("rules = %+v", rules)
	}
	if d := rules[0].Handoff.Decisions; len(d) != 2 || d[1].Each == "" || d[0].Line == "" {
		t.Errorf("decisions = %+v", d)
	}
}

func TestLoadTaskErrors(t *testing.T) {
	t.Parallel()
	base := func(extra string) string {
		return "id: t\nversion: 1\nturns: [hello]\nchecks: {answer: {contains: [x]}}\n" + extra
	}
	cases := []struct {
		name, yaml string
		want       []string
	}{
		{"yaml syntax", "id: [", []string{"task.yaml"}},
		{"unknown key", base("colour: red\n"), []string{`unknown key "colour" in a Task`, "spelling"}},
		{"unknown nested key", base("limits: {step: 3}\n"), []string{`unknown key "step" in a Limits`}},
		{"unknown turn key", "id: t\nversion: 1\nturns: [{said: hi}]\nchecks: {min_resets: 1}\n", []string{`unknown key "said"`}},
		{"no id", "version: 1\nturns: [hi]\nchecks: {min_resets: 1}\n", []string{`id ""`, "lower-case"}},
		{"bad id", strings.Replace(base(""), "id: t", "id: Has Space", 1), []string{`id "Has Space"`}},
		{"no version", strings.Replace(base(""), "version: 1", "version: 0", 1), []string{"version: give a version"}},
		{"no turns", "id: t\nversion: 1\nchecks: {min_resets: 1}\n", []string{"no turns"}},
		{"empty turn", "id: t\nversion: 1\nturns: ['  ']\nchecks: {min_resets: 1}\n", []string{"turn 1: empty message"}},
		{"reset first", "id: t\nversion: 1\nturns: [{say: hi, reset: true}]\nchecks: {min_resets: 1}\n", []string{"turn 1: reset"}},
		{"no checks", "id: t\nversion: 1\nturns: [hi]\n", []string{"checks: none", "cannot fail"}},
		{"bad answer regexp", "id: t\nversion: 1\nturns: [hi]\nchecks: {answer: {regexp: ['(']}}\n", []string{"checks.answer.regexp"}},
		{"absolute file", base("setup: {files: [{path: /etc/x, text: y}]}\n"), []string{"setup.files[1]", "relative path"}},
		{"escaping file", base("setup: {files: [{path: ../x, text: y}]}\n"), []string{"no leading / or .."}},
		{"missing copy", base("setup: {copy: nowhere}\n"), []string{"setup.copy: nowhere is not a folder"}},
		{"bad timeout", base("limits: {timeout: soon}\n"), []string{`timeout "soon"`, "90s"}},
		{"negative limit", base("limits: {steps: -1}\n"), []string{"limits: negative"}},
		{"file check without assertion", "id: t\nversion: 1\nturns: [hi]\nchecks: {files: [{path: a}]}\n", []string{"nothing to check on a"}},
		{"topic without name", "id: t\nversion: 1\nturns: [hi]\nchecks: {request: {topics: [{contains: [x]}]}}\n", []string{"topics[1]: no name"}},
		{"rule without action", base("model: {rules: [{when: {user: x}}]}\n"), []string{"model rule 1: no action"}},
		{"rule with two actions", base("model: {rules: [{say: x, fail: y}]}\n"), []string{"more than one kind of action"}},
		{"handoff without when", base("model: {rules: [{handoff: {task: x}}]}\n"), []string{"lacks handoff: true"}},
		{"catch-all not last", base("model: {rules: [{say: x}, {when: {user: y}, say: z}]}\n"), []string{"model rule 1 has no when", "move it last"}},
		{"bad when regexp", base("model: {rules: [{when: {user: '('}, say: x}]}\n"), []string{"model rule 1: when.user"}},
		{"bad template", base("model: {rules: [{say: '{{.Nope'}]}\n"), []string{"model rule 1: say"}},
		{"call with two tools", base("model: {rules: [{say: x, call: [{a: {}, b: {}}]}]}\n"), []string{"a call is one tool name"}},
		{"no rules", base("model: {rules: []}\n"), []string{"no rules"}},
		{"handoff mixed with user", base("model: {rules: [{when: {handoff: true, user: x}, say: y}]}\n"), []string{"cannot be combined"}},
		{"tool call at handoff", base("model: {rules: [{when: {handoff: true}, call: [{file_read: {}}]}]}\n"), []string{"calls tools in answer to the handoff"}},
		{"bad turn list", base("model: {rules: [{when: {turn: x}, say: y}]}\n"), []string{"turn number"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTask(t, t.TempDir(), "s", "t", c.yaml, nil)
			_, err := LoadTask(dir)
			if err == nil {
				t.Fatal("loaded; want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), filepath.Join(dir, TaskFile)) && !strings.HasPrefix(err.Error(), "eval: ") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestLoadTaskSupersededRange(t *testing.T) {
	t.Parallel()
	y := "id: t\nversion: 1\nturns: [a, b]\nchecks: {request: {superseded: [{turn: 2, by_turn: 3}]}}\n"
	_, err := LoadTask(writeTask(t, t.TempDir(), "s", "t", y, nil))
	if err == nil || !strings.Contains(err.Error(), "turns of this task (1..2)") {
		t.Errorf("err = %v", err)
	}
}

func TestLoadTasks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ok := "version: 1\nturns: [hi]\nchecks: {min_resets: 1}\n"
	writeTask(t, root, "b", "two", "id: two\n"+ok, nil)
	writeTask(t, root, "a", "one", "id: one\n"+ok, map[string]string{
		// A task's own folder is not searched: its repository may hold
		// anything, even a task.yaml of its own.
		"repo/task.yaml": "not: a task",
	})
	tasks, err := LoadTasks(root, filepath.Join(root, "a"), filepath.Join(root, "b", "two", TaskFile)) // named twice
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 2 || tasks[0].Key() != "a/one" || tasks[1].Key() != "b/two" {
		t.Errorf("tasks = %v, %v", tasks[0].Key(), tasks[len(tasks)-1].Key())
	}

	writeTask(t, root, "c", "dup", "id: one\n"+ok, nil)
	if _, err := LoadTasks(root); err == nil || !strings.Contains(err.Error(), `task id "one" is used by both`) {
		t.Errorf("duplicate ids: err = %v", err)
	}
	if _, err := LoadTasks(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no task.yaml under") {
		t.Errorf("empty folder: err = %v", err)
	}
	if _, err := LoadTasks(); err == nil {
		t.Error("no paths: want an error")
	}
}

// The suites in the repository must load: a broken task.yaml fails here,
// in a second, rather than in a run.
func TestRepositorySuitesLoad(t *testing.T) {
	t.Parallel()
	for _, suite := range []string{"../../evals/long-session", "../../evals/basic"} {
		tasks, err := LoadTasks(suite)
		if err != nil {
			t.Fatal(err)
		}
		min := map[string]int{"../../evals/long-session": 4, "../../evals/basic": 3}[suite]
		if len(tasks) < min {
			t.Errorf("%s has %d tasks; it needs at least %d", suite, len(tasks), min)
		}
		for _, task := range tasks {
			if task.Model == nil {
				t.Errorf("%s has no scripted model; CI runs it without a key", task.Key())
			}
			if strings.HasSuffix(suite, "long-session") {
				resets := 0
				for _, tr := range task.Turns {
					if tr.Reset {
						resets++
					}
				}
				if n := len(task.Turns); n < 13 || n > 14 || resets < 2 || resets > 3 {
					t.Errorf("%s: %d turns and %d forced resets; the long-session suite wants 13-14 turns and 2-3 resets", task.Key(), n, resets)
				}
			}
		}
	}
}

package gitguard

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

func TestToolReportsAndRestores(t *testing.T) {
	s := newSandbox(t)
	s.sh(s.repo, "git init -q .")
	hook := filepath.Join(s.repo, ".git", "hooks", "pre-commit")
	var write func() error // what the "command" does
	inner := &tool.Func{ToolSpec: llm.ToolSpec{Name: "shell_exec"}, Fn: func(context.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{Content: "[exit 0]"}, write()
	}}
	busy := false
	wrapped := Tool(inner, s.guard(s.repo), func() bool { return busy })
	run := func() (tool.Result, error) { return wrapped.Run(context.Background(), json.RawMessage(`{}`)) }

	write = func() error { return os.WriteFile(hook, []byte("evil"), 0o755) }
	res, err := run()
	if err != nil || !strings.Contains(res.Content, "[exit 0]\n[godwit restored git hooks/config") || !strings.Contains(res.Notice, ".git/hooks/pre-commit (added)") {
		t.Errorf("result %+v, %v", res, err)
	}
	if _, err := os.Stat(hook); err == nil {
		t.Error("the hook is still there")
	}

	// A failing command: the note rides on the error.
	write = func() error {
		os.WriteFile(hook, []byte("evil"), 0o755)
		return tool.Errorf(tool.CodeTimeout, "raise timeout_s", "timed out")
	}
	_, err = run()
	if te := tool.AsToolError(err); te.Code != tool.CodeTimeout || !strings.Contains(te.Message, "timed out\n[godwit restored") {
		t.Errorf("err = %v", err)
	}

	// Between calls: the user's change stands when no job runs...
	write = func() error { return nil }
	os.WriteFile(hook, []byte("mine"), 0o755)
	if res, _ := run(); res.Notice != "" {
		t.Errorf("the user's hook was undone: %s", res.Notice)
	}
	// ...and is undone when a background job may have made it.
	busy = true
	os.WriteFile(hook, []byte("job's"), 0o755)
	if res, _ := run(); !strings.Contains(res.Notice, ".git/hooks/pre-commit (changed)") {
		t.Errorf("notice = %q", res.Notice)
	}
	if b, _ := os.ReadFile(hook); string(b) != "mine" {
		t.Errorf("hook = %q", b)
	}
}

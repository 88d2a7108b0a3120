//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm/llmtest"
)

// noView runs commands without the sandbox's view: where they have it
// (Linux), they cannot change hooks or git config at all
// (internal/sandbox's TestViewHides); the guard is what holds without.
const noView = "GODWIT_TEST_REFUSE_NAMESPACES=1"

// TestGitHooksAndConfigAreRestored: under --yes, a command that plants a
// hook or points core.hooksPath elsewhere (directly, or through a script
// the policy cannot read) finds them put back after it, the model is
// told in the result, the user on stderr, and the session records it.
func TestGitHooksAndConfigAreRestored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	script := "printf '#!/bin/sh\\necho pwned > pwned\\n' > evil\ncp evil .git/hooks/pre-commit\nchmod +x .git/hooks/pre-commit\n" +
		"git config core.hooksPath x\ngit config user.name changed-safely\n"
	for _, tc := range []struct {
		name, command string
		viaScript     bool // the policy cannot see what it does
	}{
		{"a script", "sh setup.sh", true},
		{"cp into .git/hooks", "printf '#!/bin/sh\\necho pwned > pwned\\n' > evil && cp evil .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit", false},
		{"git config core.hooksPath", "git config core.hooksPath x", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewTestServer(t,
				llmtest.ChatReply(llmtest.ChatToolCall("c1", "shell_exec", jsonArgs(map[string]any{"command": tc.command})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
				llmtest.ChatTextReply("done", 10, 1),
			)
			home, ws := setup(t, srv.URL())
			git := func(args ...string) string {
				cmd := exec.Command("git", args...)
				cmd.Dir = ws
				cmd.Env = append(baseEnv(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
				return string(out)
			}
			git("init", "-q", ".")
			if err := os.WriteFile(filepath.Join(ws, "setup.sh"), []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			cfgBefore, _ := os.ReadFile(filepath.Join(ws, ".git", "config"))

			r := godwit(t, home, ws, []string{"HOME=" + home, noView}, "run", "--json", "--yes", "--model", "local/m", "-p", "set up the repo")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(ws, ".git", "hooks", "pre-commit")); err == nil {
				t.Error(".git/hooks/pre-commit is still there")
			}
			cfg, _ := os.ReadFile(filepath.Join(ws, ".git", "config"))
			if strings.Contains(string(cfg), "hooksPath") {
				t.Errorf("core.hooksPath is still set:\n%s", cfg)
			}
			if !tc.viaScript && string(cfg) != string(cfgBefore) {
				t.Errorf(".git/config changed:\n%s", cfg)
			}
			// The repository still works, and the hook does not run.
			git("-c", "user.email=t@x", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "x")
			if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
				t.Error("the planted hook ran")
			}

			result := toolResult(t, srv.Requests()[1].Body, "c1")
			t.Logf("the model reads: %s", result)
			denied := strings.Contains(result, "DENIED")
			if !denied && !strings.Contains(result, "[godwit restored git hooks/config") {
				t.Errorf("the model is not told: %q", result)
			}
			if tc.viaScript {
				for _, want := range []string{".git/hooks/pre-commit (added)", ".git/config (core.hooksPath changed)"} {
					if !strings.Contains(result, want) {
						t.Errorf("the model's note lacks %q: %q", want, result)
					}
				}
				if !strings.Contains(r.stdout, `"type":"notice"`) {
					t.Errorf("no notice event in --json output")
				}
				// The run's stderr carries the notice too (plain output).
				st, err := store.Open(context.Background(), filepath.Join(home, "godwit.db"))
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				last, _ := st.LastSession(context.Background())
				evs, _ := st.Events(context.Background(), last.ID)
				found := false
				for _, e := range evs {
					found = found || e.Type == "notice" && strings.Contains(string(e.Data), ".git/hooks/pre-commit")
				}
				if !found {
					t.Error("the restore is not recorded as an event")
				}
			}
		})
	}
}

// TestGitRestoreNoticeOnStderr: without --json the user reads it. The
// hook is planted by a script file, a route the policy does not judge
// for protected paths (a redirect in sh -c asks, since the policy reads
// the string).
func TestGitRestoreNoticeOnStderr(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCall("c1", "shell_exec", `{"command":"sh plant.sh"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
		llmtest.ChatTextReply("done", 10, 1),
	)
	home, ws := setup(t, srv.URL())
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(ws, "plant.sh"), []byte("echo x > .git/hooks/post-checkout\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := godwit(t, home, ws, []string{"HOME=" + home, noView}, "run", "--yes", "--model", "local/m", "-p", "go")
	if !strings.Contains(r.stderr, "godwit: restored git hooks/config a command changed: .git/hooks/post-checkout (added)") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// TestHooksPathWrittenOnTheHeaderLine: git reads `[core] hooksPath = X`
// written on one line, and so do the policy and the guard (go-git's
// decoder refused it, so neither knew X was a hooks folder): under
// --yes, a hook written there directly is refused, and one a script
// plants is taken away after it.
func TestHooksPathWrittenOnTheHeaderLine(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	for _, command := range []string{"printf '#!/bin/sh\\necho pwned > pwned\\n' > .githooks/pre-commit", "sh plant.sh"} {
		t.Run(command, func(t *testing.T) {
			srv := llmtest.NewTestServer(t,
				llmtest.ChatReply(llmtest.ChatToolCall("c1", "shell_exec", jsonArgs(map[string]any{"command": command})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
				llmtest.ChatTextReply("done", 10, 1),
			)
			home, ws := setup(t, srv.URL())
			if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
				t.Fatalf("%v %s", err, out)
			}
			f, err := os.OpenFile(filepath.Join(ws, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteString("[core] hooksPath = .githooks\n")
			if f.Close(); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(ws, ".githooks"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, "plant.sh"), []byte("printf '#!/bin/sh\\necho pwned > pwned\\n' > .githooks/pre-commit\nchmod +x .githooks/pre-commit\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r := godwit(t, home, ws, []string{"HOME=" + home}, "run", "--yes", "--model", "local/m", "-p", "go")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(ws, ".githooks", "pre-commit")); err == nil {
				t.Errorf(".githooks/pre-commit is there; the model read: %s", toolResult(t, srv.Requests()[1].Body, "c1"))
			}
		})
	}
}

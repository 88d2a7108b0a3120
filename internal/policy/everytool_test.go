package policy

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/godwit/godwit/internal/tool/deferred"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// A rule by tool name holds for every tool, those that declare no path
// or command included, called directly or through tool_call.
func TestRulesCoverToolsWithoutPaths(t *testing.T) {
	e := newEnv(t)
	rules := "deny:\n  - tool: recall\n  - tool: mcp__notes__*\nask:\n  - tool: search_memory\nallow:\n  - tool: mcp__db__write\n"
	tests := []struct {
		tool string
		acc  tool.Access
		mode Mode
		want string // A allowed unasked, Q asked, D denied unasked
	}{
		{"recall", tool.Access{}, Auto, "D"},
		{"recall", tool.Access{Summary: "recall p3"}, ReadOnly, "D"},
		{"mcp__notes__read", tool.Access{Summary: "read a note"}, Auto, "D"},
		{"mcp__notes__write", tool.Access{Mutates: true}, Auto, "D"},
		{"search_memory", tool.Access{}, ReadOnly, "Q"},
		{"search_memory", tool.Access{}, Auto, "Q"},
		{"subagent", tool.Access{}, ReadOnly, "A"},
		{"mcp__db__write", tool.Access{Mutates: true}, Ask, "A"},
		{"mcp__db__drop", tool.Access{Mutates: true}, Ask, "Q"},
	}
	for _, tt := range tests {
		rec := &recorder{answer: Answer{Choice: No}}
		p := e.policy(t, tt.mode, rules, rec)
		needs := p.NeedsApproval(tt.tool, tt.acc)
		got := "A"
		if tt.acc.Mutates || needs {
			got, _ = outcome(t, p, rec, tool.ApprovalRequest{Tool: tt.tool, Access: tt.acc})
		}
		if got != tt.want {
			t.Errorf("%s in %s mode: got %s, want %s (needs approval: %v)", tt.tool, tt.mode, got, tt.want, needs)
		}
	}
}

// The runner asks the policy about a read with no path when a rule
// names its tool, and tool_call's calls are judged as the tool they run
// and as tool_call.
func TestRunnerDeniesRuledToolsThroughTheProxy(t *testing.T) {
	e := newEnv(t)
	ran := 0
	recall := &tool.Func{ToolSpec: llm.ToolSpec{Name: "recall", Schema: json.RawMessage(`{"type":"object"}`)},
		Fn: func(context.Context, json.RawMessage) (tool.Result, error) {
			ran++
			return tool.Result{Content: "page"}, nil
		}}
	table, err := deferred.New(deferred.Options{Mode: deferred.On}, recall)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tool.NewRegistry(recall, table.Proxy())
	if err != nil {
		t.Fatal(err)
	}
	p := e.policy(t, Auto, "deny:\n  - tool: recall\n", nil)
	r := tool.NewRunner(reg, tool.RunnerOptions{Approver: p})
	out, err := r.Run(context.Background(), []llm.ToolCall{
		{ID: "1", Name: "recall", Args: json.RawMessage(`{"query":"p1"}`)},
		{ID: "2", Name: "tool_call", Args: json.RawMessage(`{"name":"recall","args":{"query":"p1"}}`)},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if !o.Result.IsError || o.Result.Code != tool.CodeDenied {
			t.Errorf("call %s: %+v, want denied", o.Call.ID, o.Result)
		}
	}
	if ran != 0 {
		t.Errorf("recall ran %d times under a deny rule", ran)
	}

	// A rule naming tool_call itself holds for every call through it,
	// and not for the tool called directly.
	p = e.policy(t, Auto, "deny:\n  - tool: tool_call\n", nil)
	r = tool.NewRunner(reg, tool.RunnerOptions{Approver: p})
	out, err = r.Run(context.Background(), []llm.ToolCall{
		{ID: "3", Name: "recall", Args: json.RawMessage(`{"query":"p1"}`)},
		{ID: "4", Name: "tool_call", Args: json.RawMessage(`{"name":"recall","args":{"query":"p1"}}`)},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Result.IsError || !out[1].Result.IsError || out[1].Result.Code != tool.CodeDenied || ran != 1 {
		t.Errorf("deny tool_call: direct %+v, through tool_call %+v; recall ran %d times, want 1", out[0].Result, out[1].Result, ran)
	}
}

// An Always answer covers the file the person saw and never a protected
// one: .mcp.json, .godwit/*, .git/*, hook folders and hook managers'
// files ask in every mode, after any Always, and offer none themselves.
func TestAlwaysNeverReachesProtected(t *testing.T) {
	e := newEnv(t)
	if out, err := exec.Command("git", "init", "-q", e.root).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	cfg := filepath.Join(e.root, ".git", "config")
	b, _ := os.ReadFile(cfg)
	mustDo(t, os.WriteFile(cfg, append(b, "[core]\n\thooksPath = .husky/_\n"...), 0o644))
	mustDo(t, os.WriteFile(filepath.Join(e.home, ".gitconfig"), []byte("[include]\n\tpath = ~/more.gitconfig\n"), 0o644))
	mustDo(t, os.WriteFile(filepath.Join(e.home, "more.gitconfig"), []byte("[core]\n\thooksPath = tools/githooks\n"), 0o644))

	for _, mode := range []Mode{Ask, Auto} {
		rec := &recorder{answer: Answer{Choice: Always}}
		p := e.policy(t, mode, "", rec)
		// Always, given for files at the root and a shell redirect.
		for _, req := range []tool.ApprovalRequest{
			pathReq("file_write", filepath.Join(e.root, "README.md"), true),
			pathReq("file_write", filepath.Join(e.root, "notes.md"), true),
			shellReq("echo hi > README.md"),
		} {
			if _, err := p.Approve(context.Background(), req); err != nil {
				t.Fatal(err)
			}
		}
		rec.answer = Answer{Choice: No}
		for _, rel := range []string{".mcp.json", ".godwit/rules.yaml", ".godwit/skills/x/SKILL.md", ".godwit/memory.md",
			".git/config", ".git/hooks/pre-push", ".husky/pre-push", ".husky/_/h", "sub/.husky/pre-commit",
			".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yaml", ".config/lefthook-local.toml", ".lefthook/pre-commit/x.sh",
			"tools/githooks/pre-commit", ".overcommit.yml", ".git-hooks/pre_commit/check.rb"} {
			for _, tn := range []string{"file_write", "file_edit"} {
				before := len(rec.asked)
				got, d := outcome(t, p, rec, pathReq(tn, filepath.Join(e.root, rel), true))
				if got != "Q" {
					t.Errorf("%s mode: %s %s after Always on README.md: got %s, want Q (%s)", mode, tn, rel, got, d.Reason)
					continue
				}
				if a := rec.asked[before].Always; len(a) > 0 {
					t.Errorf("%s mode: %s %s offers Always %q", mode, tn, rel, a)
				}
			}
			if got, d := outcome(t, p, rec, shellReq("echo x > "+rel)); got != "Q" {
				t.Errorf("%s mode: echo x > %s: got %s, want Q (%s)", mode, rel, got, d.Reason)
			}
		}
		if got, _ := outcome(t, p, rec, pathReq("file_write", filepath.Join(e.root, "README.md"), true)); got != "A" {
			t.Errorf("%s mode: README.md again: got %s, want A", mode, got)
		}
	}
}

// TestGitConfigAsGitReadsIt: policy reads git's config files with
// internal/gitconfig, as git does (a continuation line joins the next,
// the old [section.sub] names a remote); a file git would refuse is not
// "no settings": its aliases, remotes and hooks folders are unknown, so
// what they decide asks.
func TestGitConfigAsGitReadsIt(t *testing.T) {
	e := newEnv(t)
	gitRepo(t, e.root, "src/a.go")
	writeFiles(t, e.root, map[string]string{".git/config": "[alias]\n\ttidy = !r\\\nm victim.txt\n[remote.up]\n\turl = https://example.com/up\n"})
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{
		{"git tidy", "DDD"},
		{"git push -u up main", "DQa"},
		{"git remote -v", "AAA"},
		{"touch src/b.go", "DQa"},
	})
	writeFiles(t, e.root, map[string]string{".git/config": "[alias]\n\ttidy = \"!rm victim.txt\n"})
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{
		{"git tidy", "DQQ"},
		{"git push -u up main", "DQQ"},
		{"git remote -v", "QQQ"}, // any git command: an alias is not known
		{"touch src/b.go", "DQQ"},
	})
}

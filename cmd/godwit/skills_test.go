package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm/llmtest"
)

// Started in a subfolder of a repository, godwit lists the skills of the
// repository root and of the user's folders (Claude Code's, Codex's), the
// user's winning a name clash, and the skill tool reads them.
func TestSkillsFromTheRepositoryRootAndTheUser(t *testing.T) {
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCall("call_1", "skill", `{"name":"release"}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 12)),
		llmtest.ChatTextReply("Tag it, then push.", 950, 6),
	)
	home, repo := setup(t, srv.URL())
	user := t.TempDir()
	files := map[string]string{
		filepath.Join(repo, ".git", "HEAD"):                             "ref: refs/heads/main\n",
		filepath.Join(repo, ".claude", "skills", "release", "SKILL.md"): "---\nname: release\ndescription: How this repository cuts a release.\n---\nTag it with git tag, then push the tag.\n",
		filepath.Join(repo, ".claude", "skills", "review", "SKILL.md"):  "---\nname: review\ndescription: The repository's review.\n---\nno\n",
		filepath.Join(repo, "cmd", "tool", "main.go"):                   "package main\n",
		filepath.Join(user, ".claude", "skills", "review", "SKILL.md"):  "---\nname: review\ndescription: My own way to review a diff.\n---\nmine\n",
		filepath.Join(user, ".agents", "skills", "commit", "SKILL.md"):  "---\nname: commit\ndescription: My commit message style.\n---\nconventional\n",
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := godwit(t, home, filepath.Join(repo, "cmd", "tool"), []string{"HOME=" + user}, "run", "--model", "local/m", "-p", "how do I release?")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	body := string(reqs[0].Body)
	for _, want := range []string{"- release: How this repository cuts a release.", "- review: My own way to review a diff.", "- commit: My commit message style."} {
		if !strings.Contains(body, want) {
			t.Errorf("the system prompt lacks %q", want)
		}
	}
	if strings.Contains(body, "The repository's review") {
		t.Error("the repository's skill replaced the user's of the same name")
	}
	if !strings.Contains(string(reqs[1].Body), "Tag it with git tag") {
		t.Errorf("the skill tool did not read the root's skill: %s", reqs[1].Body)
	}
	if !strings.Contains(r.stderr, "review") || !strings.Contains(r.stderr, "wins") {
		t.Errorf("the name clash is not reported: %s", r.stderr)
	}
}

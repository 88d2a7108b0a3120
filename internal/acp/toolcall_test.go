package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/llm"
)

func TestNewCall(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "old.txt"), []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tool, args, summary string
		kind                      sdk.ToolKind
		title                     string
		loc                       string // location path, relative to root
		line                      int
		diff                      string // "old -> new"
	}{
		{"read with a line", "file_read", `{"path":"a/b.go","start_line":40}`, "", sdk.ToolKindRead, "Read a/b.go", "a/b.go", 40, ""},
		{"read, absolute path", "file_read", `{"path":"` + filepath.Join(root, "x.go") + `"}`, "", sdk.ToolKindRead, "Read " + filepath.Join(root, "x.go"), "x.go", 0, ""},
		{"write over a file", "file_write", `{"path":"old.txt","content":"after\n"}`, "overwrite old.txt", sdk.ToolKindEdit, "Overwrite old.txt", "old.txt", 0, "before\n -> after\n"},
		{"write a new file", "file_write", `{"path":"new.txt","content":"x"}`, "create new.txt", sdk.ToolKindEdit, "Create new.txt", "new.txt", 0, "<none> -> x"},
		{"edit", "file_edit", `{"path":"m.go","old_text":"a := 1","new_text":"a := 2"}`, "edit m.go", sdk.ToolKindEdit, "Edit m.go", "m.go", 0, "a := 1 -> a := 2"},
		{"edit creating", "file_edit", `{"path":"n.go","old_text":"","new_text":"package n"}`, "", sdk.ToolKindEdit, "Edit n.go", "n.go", 0, "<none> -> package n"},
		{"grep", "grep", `{"pattern":"func main","path":"cmd"}`, "", sdk.ToolKindSearch, "Search for func main in cmd", "cmd", 0, ""},
		{"list", "file_list", `{}`, "", sdk.ToolKindSearch, "List .", "", 0, ""},
		{"shell", "shell_exec", `{"command":"go test ./...\necho done"}`, "", sdk.ToolKindExecute, "Run: go test ./... …", "", 0, ""},
		{"shell approved", "shell_exec", `{"command":"go vet"}`, "run: go vet", sdk.ToolKindExecute, "Run: go vet", "", 0, ""},
		{"job status", "shell_exec", `{"action":"status","job_id":"j2"}`, "", sdk.ToolKindExecute, "Status job j2", "", 0, ""},
		{"plan", "plan", `{"steps":[]}`, "", sdk.ToolKindThink, "Update the plan", "", 0, ""},
		{"recall", "recall", `{"id":"p4"}`, "", sdk.ToolKindSearch, "recall", "", 0, ""},
		{"an MCP tool", "mcp__gh__issue", `{}`, "", sdk.ToolKindOther, "mcp__gh__issue", "", 0, ""},
		{"args cut short", "file_write", `{"path":"big.txt","content":"aaaa`, "", sdk.ToolKindEdit, "Write big.txt", "big.txt", 0, "<none> -> "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCall(root, "c1", tt.tool, json.RawMessage(tt.args), tt.summary, true)
			if c.kind != tt.kind || c.title != tt.title {
				t.Errorf("kind %s title %q, want %s %q", c.kind, c.title, tt.kind, tt.title)
			}
			switch {
			case tt.loc == "" && len(c.locations) > 0:
				t.Errorf("locations = %+v, want none", c.locations)
			case tt.loc != "":
				if len(c.locations) != 1 || c.locations[0].Path != filepath.Join(root, tt.loc) {
					t.Fatalf("locations = %+v, want %s", c.locations, tt.loc)
				}
				if got := c.locations[0].Line; (got == nil) != (tt.line == 0) || got != nil && *got != tt.line {
					t.Errorf("line = %v, want %d", got, tt.line)
				}
			}
			var diff string
			if len(c.diff) == 1 && c.diff[0].Diff != nil {
				d := c.diff[0].Diff
				old := "<none>"
				if d.OldText != nil {
					old = *d.OldText
				}
				diff = old + " -> " + d.NewText
			}
			if diff != tt.diff {
				t.Errorf("diff %q, want %q", diff, tt.diff)
			}
		})
	}
}

func TestReplayedWriteHasNoOldText(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f.txt"), []byte("now\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newCall(root, "c1", "file_write", json.RawMessage(`{"path":"f.txt","content":"now\n"}`), "", false)
	if d := c.diff[0].Diff; d.OldText != nil {
		t.Errorf("a replayed write shows today's file as its old text: %q", *d.OldText)
	}
}

func TestCallResult(t *testing.T) {
	tests := []struct {
		name, tool string
		info       agent.ToolInfo
		want       string // "" for keep
	}{
		{"read is fenced", "file_read", agent.ToolInfo{Output: "1\tx\n"}, "```\n1\tx\n```"},
		{"fence longer than inner", "shell_exec", agent.ToolInfo{Output: "```go\nx\n```"}, "````\n```go\nx\n```\n````"},
		{"search plain", "grep", agent.ToolInfo{Output: "a.go:1: x"}, "a.go:1: x"},
		{"an edit keeps its diff", "file_edit", agent.ToolInfo{Output: "edited"}, ""},
		{"a failed edit says why", "file_edit", agent.ToolInfo{IsError: true, Output: "ERROR EDIT_NO_MATCH: no match"}, "ERROR EDIT_NO_MATCH: no match"},
		{"no output keeps", "plan", agent.ToolInfo{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCall("/w", "c1", tt.tool, json.RawMessage(`{"path":"a.go","old_text":"a","new_text":"b"}`), "", false)
			got := c.result(&tt.info)
			var text string
			if got != nil {
				text = got[0].Content.Content.Text.Text
			}
			if text != tt.want {
				t.Errorf("result %q, want %q", text, tt.want)
			}
		})
	}
}

func TestPromptText(t *testing.T) {
	blocks := []sdk.ContentBlock{
		sdk.TextBlock("fix the bug in"),
		sdk.ResourceLinkBlock("main.go", "file:///w/main.go"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///w/x.go", Text: "package x\n"}}),
		sdk.ImageBlock("AAAA", "image/png"),
	}
	want := "fix the bug in\n@/w/main.go\n<file path=\"/w/x.go\">\npackage x\n</file>"
	if got := promptText(blocks); got != want {
		t.Errorf("promptText = %q, want %q", got, want)
	}
	if got := promptText([]sdk.ContentBlock{sdk.ImageBlock("AAAA", "image/png")}); got != "" {
		t.Errorf("an image alone gave %q", got)
	}
}

// Editors send file URIs percent-encoded, a selection's lines as the
// fragment (Zed: file:///a/b.go#L10:20): the model needs the real path.
func TestURIPath(t *testing.T) {
	for uri, want := range map[string]string{
		"file:///w/main.go":              "/w/main.go",
		"file:///w/my%20dir/r%C3%A9.go":  "/w/my dir/ré.go",
		"file:///w/a%23b.go#L10:20":      "/w/a#b.go#L10:20",
		"file:///w/x.go?symbol=Run#L3:9": "/w/x.go#L3:9",
		"https://example.com/a%20b":      "https://example.com/a%20b",
		"/w/plain.go":                    "/w/plain.go",
	} {
		if got := uriPath(uri); got != want {
			t.Errorf("uriPath(%q) = %q, want %q", uri, got, want)
		}
	}
}

func TestPathFieldAndCut(t *testing.T) {
	if got := pathField(`{"content":"x","path":"a\"b.go","more`); got != `a"b.go` {
		t.Errorf("pathField = %q", got)
	}
	if got := cut("héllo", 2); got != "h…" || !strings.HasPrefix(cut("abc", 5), "abc") {
		t.Errorf("cut = %q", got)
	}
}

func TestRetryLine(t *testing.T) {
	tests := []struct {
		e    agent.Event
		want string
	}{
		{agent.Event{Retry: &llm.Retry{Reason: "overloaded"}}, ""},
		{agent.Event{Retry: &llm.Retry{Reason: "overloaded", Discarded: true}}, "↻ overloaded; the partial answer above is discarded, retrying"},
		{agent.Event{Fallback: &llm.Fallback{From: "a/x", To: "b/y", Reason: "rate limited"}}, "⇢ switching from a/x to b/y: rate limited"},
	}
	for _, tt := range tests {
		if got := retryLine(tt.e); got != tt.want {
			t.Errorf("retryLine = %q, want %q", got, tt.want)
		}
	}
}

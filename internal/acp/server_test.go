package acp_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/godwit/godwit/internal/acp"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
	"github.com/godwit/godwit/llm/retry"
	_ "modernc.org/sqlite"
)

// describe renders an update as one comparable line.
func describe(n sdk.SessionNotification) string {
	u := n.Update
	switch {
	case u.UserMessageChunk != nil:
		return "user: " + blockText(u.UserMessageChunk.Content)
	case u.AgentMessageChunk != nil:
		return "message: " + blockText(u.AgentMessageChunk.Content)
	case u.AgentThoughtChunk != nil:
		return "thought: " + blockText(u.AgentThoughtChunk.Content)
	case u.ToolCall != nil:
		tc := u.ToolCall
		return "tool_call " + string(tc.ToolCallId) + " " + string(tc.Kind) + " " + string(tc.Status) + " " + tc.Title
	case u.ToolCallUpdate != nil:
		tu := u.ToolCallUpdate
		s := "update " + string(tu.ToolCallId)
		if tu.Status != nil {
			s += " " + string(*tu.Status)
		}
		return s
	case u.Plan != nil:
		var parts []string
		for _, e := range u.Plan.Entries {
			parts = append(parts, e.Content+"="+string(e.Status))
		}
		return "plan: " + strings.Join(parts, ", ")
	}
	b, _ := json.Marshal(u)
	return "other: " + string(b)
}

func blockText(b sdk.ContentBlock) string {
	if b.Text != nil {
		return b.Text.Text
	}
	return "?"
}

func describeAll(ns []sdk.SessionNotification) []string {
	var out []string
	for _, n := range ns {
		out = append(out, describe(n))
	}
	return out
}

// contentText joins the text and diff content of tool call updates for
// one call.
func toolContent(ns []sdk.SessionNotification, id string) (text string, diffs []sdk.ToolCallContentDiff, locs []sdk.ToolCallLocation) {
	var b strings.Builder
	add := func(cs []sdk.ToolCallContent) {
		for _, c := range cs {
			switch {
			case c.Content != nil:
				b.WriteString(blockText(c.Content.Content))
			case c.Diff != nil:
				diffs = append(diffs, *c.Diff)
			case c.Terminal != nil:
				b.WriteString("[terminal " + c.Terminal.TerminalId + "]")
			}
		}
	}
	for _, n := range ns {
		switch u := n.Update; {
		case u.ToolCall != nil && string(u.ToolCall.ToolCallId) == id:
			add(u.ToolCall.Content)
			locs = append(locs, u.ToolCall.Locations...)
		case u.ToolCallUpdate != nil && string(u.ToolCallUpdate.ToolCallId) == id:
			add(u.ToolCallUpdate.Content)
		}
	}
	return b.String(), diffs, locs
}

func equal(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("updates:\n got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestPromptStreamsUpdates(t *testing.T) {
	ws := t.TempDir()
	planArgs := map[string]any{"steps": []map[string]string{{"text": "read a.txt", "status": "done"}, {"text": "answer", "status": "in_progress"}}}
	model := script(
		fake.Step{Thinking: "let me look", Text: "Reading.", ToolCalls: []llm.ToolCall{fake.Call("c1", "file_read", map[string]any{"path": "a.txt", "start_line": 2})}},
		fake.Step{ToolCalls: []llm.ToolCall{fake.Call("c2", "plan", planArgs)}},
		fake.Step{Text: "It says world."},
	)
	ed := &editor{t: t, files: map[string]string{filepath.Join(ws, "a.txt"): "hello\nworld\n"}}
	c := connect(t, ed, acp.Options{Build: builder(t.TempDir(), model), Version: "1.2.3"})
	init := c.initialize(t, sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}})
	if !init.AgentCapabilities.LoadSession || init.AgentInfo == nil || init.AgentInfo.Version != "1.2.3" {
		t.Errorf("initialize = %+v", init)
	}
	id := c.newSession(t, ws)
	resp := c.prompt(t, id, "what does a.txt say?")
	if resp.StopReason != sdk.StopReasonEndTurn || resp.Usage == nil || resp.Usage.InputTokens == 0 {
		t.Errorf("prompt response = %+v", resp)
	}
	got := ed.took()
	equal(t, describeAll(got), []string{
		"thought: let me look",
		"message: Reading.",
		"tool_call c1 read in_progress Read a.txt",
		"update c1 completed",
		"tool_call c2 think in_progress Update the plan",
		"update c2 completed",
		"plan: read a.txt=completed, answer=in_progress",
		"message: \n\nIt says world.",
		"message: \n\ndone.", // the plan's open step sends the model back once
	})
	text, _, locs := toolContent(got, "c1")
	if !strings.Contains(text, "2\tworld") {
		t.Errorf("file_read result %q lacks the buffer's line 2", text)
	}
	if len(locs) != 1 || locs[0].Path != filepath.Join(ws, "a.txt") || locs[0].Line == nil || *locs[0].Line != 2 {
		t.Errorf("locations = %+v", locs)
	}
	if len(ed.fsReads) != 1 {
		t.Errorf("the file was read %d times through the editor, want 1 (it exists only as a buffer)", len(ed.fsReads))
	}
	for _, line := range strings.Split(strings.TrimSpace(c.out.String()), "\n") {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Fatalf("the server wrote a line that is not JSON-RPC: %q", line)
		}
	}
}

func TestApprovals(t *testing.T) {
	write := func(id, content string) fake.Step {
		return fake.Step{ToolCalls: []llm.ToolCall{fake.Call(id, "file_write", map[string]any{"path": "out.txt", "content": content})}}
	}
	selected := func(opt string) func(sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		return func(sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
			return sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(opt))
		}
	}
	tests := []struct {
		name   string
		mode   acp.Mode
		answer func(sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome
		asked  int    // permission requests for the two writes
		file   string // out.txt afterwards
		status string // of the second write
		reason string // in the second write's failure
	}{
		{"ask, allow once each time", acp.ModeAsk, selected("allow_once"), 2, "two", "completed", ""},
		{"ask, allow always asks once", acp.ModeAsk, selected("allow_always"), 1, "two", "completed", ""},
		{"ask, reject once", acp.ModeAsk, selected("reject_once"), 2, "", "failed", "the user said no"},
		{"ask, reject always asks once", acp.ModeAsk, selected("reject_always"), 1, "", "failed", "the user refused file_write path out.txt for this session"},
		{"ask, cancelled", acp.ModeAsk, func(sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
			return sdk.NewRequestPermissionOutcomeCancelled()
		}, 2, "", "failed", "cancelled"},
		{"read-only never asks", acp.ModeReadOnly, nil, 0, "", "failed", "switch this session to Ask mode"},
		{"auto never asks", acp.ModeAuto, nil, 0, "two", "completed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each case has its own workspace, editor and store
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "out.txt"), []byte("zero\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ed := &editor{t: t, answer: tt.answer, files: map[string]string{}}
			c := connect(t, ed, acp.Options{Build: builder(t.TempDir(), script(write("w1", "one"), write("w2", "two"))), Mode: tt.mode})
			c.initialize(t, sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}})
			id := c.newSession(t, ws)
			c.prompt(t, id, "write it twice")
			if len(ed.permissions) != tt.asked {
				t.Fatalf("asked %d times, want %d", len(ed.permissions), tt.asked)
			}
			if got := ed.files[filepath.Join(ws, "out.txt")]; got != tt.file {
				t.Errorf("out.txt in the editor = %q, want %q", got, tt.file)
			}
			if disk, _ := os.ReadFile(filepath.Join(ws, "out.txt")); string(disk) != "zero\n" {
				t.Errorf("the disk was written (%q): writes must go through the editor", disk)
			}
			ups := ed.took()
			var last string
			for _, d := range describeAll(ups) {
				if strings.HasPrefix(d, "update w2 ") && !strings.HasSuffix(d, "in_progress") {
					last = strings.TrimPrefix(d, "update w2 ")
				}
			}
			if last != tt.status {
				t.Errorf("w2 ended %q, want %q\n%s", last, tt.status, strings.Join(describeAll(ups), "\n"))
			}
			text, diffs, _ := toolContent(ups, "w2")
			if !strings.Contains(text, tt.reason) {
				t.Errorf("w2 shows %q, want it to say %q", text, tt.reason)
			}
			if len(diffs) == 0 || diffs[0].NewText != "two" || diffs[0].Path != filepath.Join(ws, "out.txt") {
				t.Errorf("w2 diff = %+v", diffs)
			}
			if tt.asked > 0 {
				p := ed.permissions[0]
				if len(p.Options) != 4 || p.ToolCall.Kind == nil || *p.ToolCall.Kind != sdk.ToolKindEdit ||
					len(p.ToolCall.Content) != 2 || p.ToolCall.Content[0].Diff == nil ||
					p.ToolCall.Content[0].Diff.OldText == nil || *p.ToolCall.Content[0].Diff.OldText != "zero\n" ||
					p.ToolCall.Content[1].Content == nil || blockText(p.ToolCall.Content[1].Content.Content) != "Needs approval: writes out.txt" {
					b, _ := json.Marshal(p)
					t.Errorf("permission request: %s", b)
				}
			}
		})
	}
}

func TestCancelDuringPermission(t *testing.T) {
	ws := t.TempDir()
	model := script(fake.Step{ToolCalls: []llm.ToolCall{fake.Call("w1", "file_write", map[string]any{"path": "x.txt", "content": "x"})}})
	ed := &editor{t: t, files: map[string]string{}}
	c := connect(t, ed, acp.Options{Build: builder(t.TempDir(), model)})
	var id sdk.SessionId
	ed.answer = func(p sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		// The user presses stop while the prompt is shown: the client
		// cancels and answers the pending request with cancelled.
		if err := c.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}); err != nil {
			t.Error(err)
		}
		return sdk.NewRequestPermissionOutcomeCancelled()
	}
	c.initialize(t, sdk.ClientCapabilities{})
	id = c.newSession(t, ws)
	if resp := c.prompt(t, id, "write x"); resp.StopReason != sdk.StopReasonCancelled {
		t.Errorf("stop reason = %s, want cancelled", resp.StopReason)
	}
	if _, err := os.Stat(filepath.Join(ws, "x.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("x.txt was written after the cancel: %v", err)
	}
	// The session still works.
	ed.answer = nil
	if resp := c.prompt(t, id, "go on"); resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("next turn stopped with %s", resp.StopReason)
	}
}

func TestLoadReplaysHistory(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := script(
		fake.Step{Thinking: "look first", ToolCalls: []llm.ToolCall{fake.Call("c1", "file_read", map[string]any{"path": "a.txt"})}},
		fake.Step{Text: "It says hello."},
	)
	first := &editor{t: t}
	c1 := connect(t, first, acp.Options{Build: builder(home, model)})
	c1.initialize(t, sdk.ClientCapabilities{})
	id := c1.newSession(t, ws)
	c1.prompt(t, id, "what is in a.txt?")

	// Another editor process loads the session from the store.
	second := &editor{t: t}
	c2 := connect(t, second, acp.Options{Build: builder(home, model)})
	c2.initialize(t, sdk.ClientCapabilities{})
	if _, err := c2.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: id, Cwd: ws, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	replayed := second.took()
	equal(t, describeAll(replayed), []string{
		"user: what is in a.txt?",
		"thought: look first",
		"tool_call c1 read completed Read a.txt",
		"message: It says hello.",
	})
	if text, _, _ := toolContent(replayed, "c1"); !strings.Contains(text, "1\thello") {
		t.Errorf("replayed result %q", text)
	}

	// The loaded session goes on with its history.
	c2.prompt(t, id, "and now?")
	reqs := model.Requests()
	last, _ := json.Marshal(reqs[len(reqs)-1].Messages)
	if !strings.Contains(string(last), "what is in a.txt?") || !strings.Contains(string(last), "and now?") {
		t.Errorf("the next request lacks the earlier turn: %s", last)
	}

	_, err := c2.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: "nope", Cwd: ws, McpServers: []sdk.McpServer{}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32002 || !strings.Contains(re.Message, "session/new") {
		t.Errorf("loading an unknown session: %v", err)
	}

	// Another workspace's editor cannot load it, by its id or a prefix:
	// nothing of its history is replayed there.
	third := &editor{t: t}
	c3 := connect(t, third, acp.Options{Build: builder(home, model)})
	c3.initialize(t, sdk.ClientCapabilities{})
	for _, ref := range []string{string(id), string(id)[:8]} {
		_, err = c3.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: sdk.SessionId(ref), Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
		if !errors.As(err, &re) || re.Code != -32002 {
			t.Errorf("loading %s from another workspace: %v", ref, err)
		}
	}
	if got := third.took(); len(got) != 0 {
		t.Errorf("another workspace was shown %s", describeAll(got))
	}
}

func TestShellRunsInEditorTerminal(t *testing.T) {
	ws := t.TempDir()
	model := script(fake.Step{ToolCalls: []llm.ToolCall{fake.Call("s1", "shell_exec", map[string]any{"command": "echo hi"})}})
	ed := &editor{t: t}
	c := connect(t, ed, acp.Options{Build: builder(t.TempDir(), model), Mode: acp.ModeAuto})
	c.initialize(t, sdk.ClientCapabilities{Terminal: true})
	id := c.newSession(t, ws)
	c.prompt(t, id, "say hi")
	if len(ed.terminals) != 1 {
		t.Fatalf("%d terminals created, want 1", len(ed.terminals))
	}
	term := ed.terminals[0]
	if !strings.Contains(strings.Join(term.Args, " "), "echo hi") || term.Cwd == nil || *term.Cwd != ws {
		t.Errorf("terminal/create = %+v", term)
	}
	ups := ed.took()
	text, _, _ := toolContent(ups, "s1")
	if !strings.Contains(text, "[terminal term-1]") {
		t.Errorf("the call does not show the terminal: %q", text)
	}
	var result string
	for _, m := range model.Requests()[1].Messages {
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				result = p.ToolResult.Content
			}
		}
	}
	if !strings.Contains(result, "hi from the editor") || !strings.Contains(result, "[exit 0") {
		t.Errorf("the model read %q", result)
	}
}

func TestRequestErrors(t *testing.T) {
	ws := t.TempDir()
	ed := &editor{t: t}
	failing := func(context.Context, acp.EngineRequest) (*acp.Engine, error) {
		return nil, errors.New("wiring: no model configured: name one with --model provider/model or GODWIT_MODEL")
	}
	c := connect(t, ed, acp.Options{Build: builder(t.TempDir(), script())})
	c.initialize(t, sdk.ClientCapabilities{})
	id := c.newSession(t, ws)
	bad := connect(t, &editor{t: t}, acp.Options{Build: failing})
	bad.initialize(t, sdk.ClientCapabilities{})
	ctx := context.Background()

	tests := []struct {
		name string
		err  error
		code int
		msg  string
	}{
		{"relative cwd", func() error {
			_, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: "rel", McpServers: []sdk.McpServer{}})
			return err
		}(), -32602, "absolute path"},
		{"missing cwd", func() error {
			_, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: ws + "/gone", McpServers: []sdk.McpServer{}})
			return err
		}(), -32602, "no folder " + ws + "/gone"},
		{"unknown session", func() error {
			_, err := c.Prompt(ctx, sdk.PromptRequest{SessionId: "nope", Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}})
			return err
		}(), -32002, "session/new"},
		{"empty prompt", func() error {
			_, err := c.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{}})
			return err
		}(), -32602, "no text"},
		{"unknown mode", func() error {
			_, err := c.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: id, ModeId: "yolo"})
			return err
		}(), -32602, "read-only, ask or auto"},
		{"build fails", func() error {
			_, err := bad.NewSession(ctx, sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
			return err
		}(), -32603, "--model provider/model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var re *sdk.RequestError
			if !errors.As(tt.err, &re) || re.Code != tt.code || !strings.Contains(re.Message, tt.msg) {
				t.Errorf("err = %v, want code %d saying %q", tt.err, tt.code, tt.msg)
			}
		})
	}
}

func TestSetModeTakesEffect(t *testing.T) {
	ws := t.TempDir()
	model := script(fake.Step{ToolCalls: []llm.ToolCall{fake.Call("w1", "file_write", map[string]any{"path": "x.txt", "content": "x"})}})
	ed := &editor{t: t}
	c := connect(t, ed, acp.Options{Build: builder(t.TempDir(), model)})
	c.initialize(t, sdk.ClientCapabilities{})
	resp, err := c.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Modes == nil || resp.Modes.CurrentModeId != "ask" || len(resp.Modes.AvailableModes) != 3 {
		t.Fatalf("modes = %+v", resp.Modes)
	}
	if _, err := c.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: resp.SessionId, ModeId: "auto"}); err != nil {
		t.Fatal(err)
	}
	c.prompt(t, resp.SessionId, "write x")
	if len(ed.permissions) != 0 {
		t.Errorf("auto mode asked %d times", len(ed.permissions))
	}
	if b, err := os.ReadFile(filepath.Join(ws, "x.txt")); err != nil || string(b) != "x" {
		t.Errorf("x.txt = %q, %v", b, err)
	}
}

// TestRejectAlwaysHoldsInEveryMode is the editor's flow: "always
// reject" for a command in ask mode, then the session switched to auto
// mode, where nothing asks. The command must not run there either, and
// the record says the person refused, not the policy.
func TestRejectAlwaysHoldsInEveryMode(t *testing.T) {
	ws := t.TempDir()
	home := t.TempDir()
	touch := func(id string) fake.Step {
		return fake.Step{ToolCalls: []llm.ToolCall{fake.Call(id, "shell_exec", map[string]any{"command": "touch rj_file"})}}
	}
	model := script(touch("t1"), fake.Step{Text: "refused."}, touch("t2"), fake.Step{Text: "refused again."},
		fake.Step{ToolCalls: []llm.ToolCall{fake.Call("t3", "shell_exec", map[string]any{"command": "mkdir other"})}}, fake.Step{Text: "made."})
	ed := &editor{t: t, answer: func(sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		return sdk.NewRequestPermissionOutcomeSelected("reject_always")
	}}
	c := connect(t, ed, acp.Options{Build: builder(home, model)})
	c.initialize(t, sdk.ClientCapabilities{})
	id := c.newSession(t, ws)
	c.prompt(t, id, "touch it")
	if _, err := c.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: id, ModeId: "auto"}); err != nil {
		t.Fatal(err)
	}
	c.prompt(t, id, "touch it again")
	c.prompt(t, id, "make a folder")
	if len(ed.permissions) != 1 {
		t.Errorf("asked %d times, want once", len(ed.permissions))
	}
	if _, err := os.Stat(filepath.Join(ws, "rj_file")); err == nil {
		t.Fatal("rj_file was made in auto mode after the user answered always reject")
	}
	if _, err := os.Stat(filepath.Join(ws, "other")); err != nil {
		t.Errorf("auto mode still runs what was not refused: %v", err)
	}
	text, _, _ := toolContent(ed.took(), "t2")
	if !strings.Contains(text, "the user refused shell_exec command touch rj_file * for this session") {
		t.Errorf("t2 shows %q", text)
	}
	db, err := sql.Open("sqlite", filepath.Join(home, "godwit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT call_id, decision, source, rule FROM approvals ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var call, decision, source, rule string
		if err := rows.Scan(&call, &decision, &source, &rule); err != nil {
			t.Fatal(err)
		}
		got = append(got, call+" "+decision+" "+source+" "+rule)
	}
	want := []string{
		"t1 deny user the user said no, for the rest of the session, to shell_exec command touch rj_file *",
		"t2 deny policy runs `touch rj_file`: the user refused shell_exec command touch rj_file * for this session",
		"t3 allow policy auto mode",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("approvals:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAlwaysIsThePolicyScope answers "always" in ask mode: it becomes
// the policy's session-scoped Always, for the scope the option names (a
// command's program and first argument), and nothing wider.
func TestAlwaysIsThePolicyScope(t *testing.T) {
	ws := t.TempDir()
	run := func(id, command string) fake.Step {
		return fake.Step{ToolCalls: []llm.ToolCall{fake.Call(id, "shell_exec", map[string]any{"command": command})}}
	}
	model := script(run("s1", "mkdir -p a"), run("s2", "mkdir -p b"), run("s3", "touch c"))
	ed := &editor{t: t, answer: func(sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		return sdk.NewRequestPermissionOutcomeSelected("allow_always")
	}}
	c := connect(t, ed, acp.Options{Build: builder(t.TempDir(), model)})
	c.initialize(t, sdk.ClientCapabilities{})
	c.prompt(t, c.newSession(t, ws), "make files")
	var asked []string
	for _, p := range ed.permissions {
		for _, o := range p.Options {
			if o.Kind == sdk.PermissionOptionKindAllowAlways {
				asked = append(asked, string(p.ToolCall.ToolCallId)+": "+o.Name)
			}
		}
	}
	want := []string{"s1: Always allow shell_exec command mkdir *", "s3: Always allow shell_exec command touch c *"}
	if strings.Join(asked, "\n") != strings.Join(want, "\n") {
		t.Errorf("asked:\n%s\nwant:\n%s", strings.Join(asked, "\n"), strings.Join(want, "\n"))
	}
	for _, name := range []string{"a", "b", "c"} {
		if _, err := os.Stat(filepath.Join(ws, name)); err != nil {
			t.Errorf("%s was not made: %v", name, err)
		}
	}
}

// A failed turn's error reaches the editor in the words Options.Explain
// gives it, and a notice (here: the model sent nothing) follows the
// answer, so the editor's user is not left with a blank.
func TestFailedTurnAndNoticeReachTheEditor(t *testing.T) {
	ws := t.TempDir()
	model := script(
		fake.Step{Err: &llm.Error{Kind: llm.KindAuth, Provider: "fake", StatusCode: 401, Message: "invalid x-api-key"}},
		fake.Step{},
	)
	ed := &editor{t: t}
	explain := func(err error) string { return "worded: " + err.Error() }
	c := connect(t, ed, acp.Options{Build: builder(t.TempDir(), model), Explain: explain})
	c.initialize(t, sdk.ClientCapabilities{})
	id := c.newSession(t, ws)
	_, err := c.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || !strings.HasPrefix(re.Message, "worded: ") || !strings.Contains(re.Message, "invalid x-api-key") {
		t.Errorf("err = %v, want the explained error", err)
	}
	ed.took()
	if resp := c.prompt(t, id, "again"); resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("prompt response = %+v", resp)
	}
	if got := strings.Join(describeAll(ed.took()), "\n"); !strings.Contains(got, "message: \n\nthe model sent an empty answer") {
		t.Errorf("the notice did not reach the editor:\n%s", got)
	}
}

// A model that reuses a call id (here in the turn's next step) must not
// get its new call approved under the earlier call's title and
// arguments: the editor would show the user the harmless call.
func TestReusedCallIDShowsTheNewCall(t *testing.T) {
	write := func(path, content string) fake.Step {
		return fake.Step{ToolCalls: []llm.ToolCall{fake.Call("dup", "file_write", map[string]any{"path": path, "content": content})}}
	}
	ws := t.TempDir()
	ed := &editor{t: t, files: map[string]string{}}
	c := connect(t, ed, acp.Options{Build: builder(t.TempDir(), script(write("notes.txt", "harmless"), write("evil.txt", "evil")))})
	c.initialize(t, sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}})
	c.prompt(t, c.newSession(t, ws), "write notes")
	if len(ed.permissions) != 2 {
		t.Fatalf("asked %d times, want 2", len(ed.permissions))
	}
	first, second := ed.permissions[0].ToolCall, ed.permissions[1].ToolCall
	b, _ := json.Marshal(second)
	if second.Title == nil || !strings.Contains(*second.Title, "evil.txt") || !strings.Contains(string(b), `"content":"evil"`) {
		t.Errorf("the second permission request shows %s, not the call it approves", b)
	}
	if first.ToolCallId == second.ToolCallId {
		t.Errorf("both calls are shown as tool call %s", first.ToolCallId)
	}
	var starts []string
	for _, d := range describeAll(ed.took()) {
		if strings.HasPrefix(d, "tool_call ") {
			starts = append(starts, d)
		}
	}
	if len(starts) != 2 {
		t.Errorf("tool_call starts: %q, want one per call", starts)
	}
}

// The title shows a command's first line, cut at 80 characters: a
// permission request for a longer one shows the whole command, or the
// user approves what they cannot see.
func TestPermissionShowsTheWholeCommand(t *testing.T) {
	long := "echo " + strings.Repeat("a", 90) + " && touch tail.txt"
	for _, cmd := range []string{"echo harmless\ntouch second-line.txt", long} {
		ed := &editor{t: t, answer: func(sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
			return sdk.NewRequestPermissionOutcomeSelected("reject_once")
		}}
		model := script(fake.Step{ToolCalls: []llm.ToolCall{fake.Call("s1", "shell_exec", map[string]any{"command": cmd})}})
		c := connect(t, ed, acp.Options{Build: builder(t.TempDir(), model)})
		c.initialize(t, sdk.ClientCapabilities{})
		c.prompt(t, c.newSession(t, t.TempDir()), "run it")
		if len(ed.permissions) != 1 {
			t.Fatalf("asked %d times, want 1", len(ed.permissions))
		}
		var shown strings.Builder
		for _, x := range ed.permissions[0].ToolCall.Content {
			if x.Content != nil {
				shown.WriteString(blockText(x.Content.Content) + "\n")
			}
		}
		if !strings.Contains(shown.String(), cmd) {
			t.Errorf("the permission request for %q shows only %q and %q", cmd, *ed.permissions[0].ToolCall.Title, shown.String())
		}
	}
}

// cutOff streams part of an answer and fails (retryably) on its first
// call, then answers whole.
type cutOff struct{ calls int }

func (p *cutOff) Name() string { return "fake" }

func (p *cutOff) Stream(_ context.Context, _ llm.Request) iter.Seq2[llm.Event, error] {
	p.calls++
	first := p.calls == 1
	return func(yield func(llm.Event, error) bool) {
		if first {
			if yield(llm.Event{Type: llm.EventTextDelta, Text: "The answer is fo"}, nil) {
				yield(llm.Event{}, fmt.Errorf("stream broke: %w", llm.ErrRetryable))
			}
			return
		}
		for _, ev := range []llm.Event{{Type: llm.EventTextDelta, Text: "The answer is 42."},
			{Type: llm.EventUsage, Usage: &llm.Usage{InputTokens: 10, OutputTokens: 5}}, {Type: llm.EventStop, StopReason: llm.StopEndTurn}} {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// A model call that fails after streaming part of its answer is retried:
// the editor cannot take back the chunks it was sent, so it must be told
// that they are void, or it shows the cut answer run into the new one.
func TestRetryAfterPartialAnswerIsSaid(t *testing.T) {
	provider := retry.New(&cutOff{}, retry.Options{Sleep: func(context.Context, time.Duration) error { return nil }})
	ed := &editor{t: t}
	c := connect(t, ed, acp.Options{Build: builder(t.TempDir(), provider)})
	c.initialize(t, sdk.ClientCapabilities{})
	c.prompt(t, c.newSession(t, t.TempDir()), "what is it?")
	var text strings.Builder
	for _, d := range describeAll(ed.took()) {
		if m, ok := strings.CutPrefix(d, "message: "); ok {
			text.WriteString(m)
		}
	}
	got := text.String()
	if !strings.HasPrefix(got, "The answer is fo") || !strings.HasSuffix(got, "\n\nThe answer is 42.") || !strings.Contains(got, "discarded") {
		t.Errorf("the editor shows %q: the cut answer must be said to be discarded, the new one follow in a paragraph of its own", got)
	}
}

// TestDiskFallbackFollowsNoLink: the editor has no buffer of a file,
// and while it looks, a command swaps the file for a link to a secret
// outside the workspace. godwit reads the disk itself then, and must not
// follow the link.
func TestDiskFallbackFollowsNoLink(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "id_key")
	if err := os.WriteFile(secret, []byte("SECRET-KEY-MATERIAL\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("harmless\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ed := &editor{t: t, files: map[string]string{}, onRead: func(string) {
		_ = os.Remove(notes)
		_ = os.Symlink(secret, notes)
	}}
	model := script(fake.Step{ToolCalls: []llm.ToolCall{fake.Call("r1", "file_read", map[string]any{"path": "notes.txt"})}}, fake.Step{Text: "read."})
	c := connect(t, ed, acp.Options{Build: builder(t.TempDir(), model)})
	c.initialize(t, sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}})
	c.prompt(t, c.newSession(t, ws), "read notes")
	text, _, _ := toolContent(ed.took(), "r1")
	if strings.Contains(text, "SECRET") || !strings.Contains(text, "link") {
		t.Fatalf("the read followed the swapped link: %q", text)
	}
}

// TestEditorCapabilitiesAlone: a client that can read its buffers but
// not write them gets buffer reads, and writes go to the disk; a client
// that can only write gets reads from the disk.
func TestEditorCapabilitiesAlone(t *testing.T) {
	for _, caps := range []sdk.FileSystemCapabilities{{ReadTextFile: true}, {WriteTextFile: true}} {
		ws := t.TempDir()
		if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("on disk\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ed := &editor{t: t, files: map[string]string{filepath.Join(ws, "a.txt"): "in the buffer\n"}}
		model := script(fake.Step{ToolCalls: []llm.ToolCall{
			fake.Call("r1", "file_read", map[string]any{"path": "a.txt"}),
		}}, fake.Step{ToolCalls: []llm.ToolCall{
			fake.Call("w1", "file_write", map[string]any{"path": "b.txt", "content": "new\n"}),
		}}, fake.Step{Text: "done."})
		c := connect(t, ed, acp.Options{Build: builder(t.TempDir(), model), Mode: acp.ModeAuto})
		c.initialize(t, sdk.ClientCapabilities{Fs: caps})
		c.prompt(t, c.newSession(t, ws), "go")
		text, _, _ := toolContent(ed.took(), "r1")
		want := "on disk"
		if caps.ReadTextFile {
			want = "in the buffer"
		}
		if !strings.Contains(text, want) {
			t.Errorf("%+v: file_read shows %q, want %q", caps, text, want)
		}
		data, err := os.ReadFile(filepath.Join(ws, "b.txt"))
		ed.mu.Lock()
		_, inEditor := ed.files[filepath.Join(ws, "b.txt")]
		ed.mu.Unlock()
		if caps.WriteTextFile != inEditor || (err == nil) == caps.WriteTextFile || (err == nil && string(data) != "new\n") {
			t.Errorf("%+v: b.txt in the editor %v, on disk %q (%v)", caps, inEditor, data, err)
		}
	}
}

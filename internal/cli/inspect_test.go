package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/internal/trace"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
	"github.com/godwit/godwit/tool"
)

// recordSession runs a two-step scripted turn into a store under home and
// returns the session id.
func recordSession(t *testing.T, home string) string {
	t.Helper()
	ctx := context.Background()
	st := storetest.OpenAt(t, wiring.DBPath(home))
	code := 1
	shell := &tool.Func{ToolSpec: llm.ToolSpec{Name: "shell_exec"}, Fn: func(context.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{Content: "--- FAIL: TestX\n[exit 1 · 0.10s]", ExitCode: &code}, nil
	}}
	reg, err := tool.NewRegistry(shell)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := agent.New(agent.Config{
		Provider: fake.New(
			fake.Step{Text: "Running the tests.", ToolCalls: []llm.ToolCall{fake.Call("a", "shell_exec", map[string]string{"command": "go test ./..."})}},
			fake.Step{Text: "TestX fails."}),
		Model:     "scripted",
		Assembler: window.New(window.Options{System: "sys", Tools: reg.Specs()}),
		Runner:    tool.NewRunner(reg, tool.RunnerOptions{}),
		Store:     st,
		Workspace: "/ws",
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rt.Run(ctx, agent.RunInput{Prompt: "do the tests pass?"})
	if err != nil {
		t.Fatal(err)
	}
	return res.SessionID
}

func testFactory(home string) (*Factory, *bytes.Buffer, *bytes.Buffer) {
	ios, _, out, errOut := fakeStreams()
	return &Factory{IO: ios, Getenv: func(k string) string {
		if k == "GODWIT_HOME" {
			return home
		}
		return ""
	}, Workdir: "/ws"}, out, errOut // recordSession's workspace
}

func TestInspectTraceFlags(t *testing.T) {
	tests := []struct {
		args    string
		want    InspectOptions
		wantErr string
	}{
		{args: "last", want: InspectOptions{Session: "last", Addr: "127.0.0.1:0"}},
		{args: "abc --json", want: InspectOptions{Session: "abc", JSON: true, Addr: "127.0.0.1:0"}},
		{args: "abc --analyze --json", want: InspectOptions{Session: "abc", Analyze: true, JSON: true, Addr: "127.0.0.1:0"}},
		{args: "abc --transcript", want: InspectOptions{Session: "abc", Transcript: true, Addr: "127.0.0.1:0"}},
		{args: "abc --web --addr 127.0.0.1:8123", want: InspectOptions{Session: "abc", Web: true, Addr: "127.0.0.1:8123"}},
		{args: "abc --analyze --transcript", wantErr: "choose one of"},
		{args: "abc --transcript --json", wantErr: "--json goes with"},
		{args: "abc --addr :9000", wantErr: "--addr is for --web"},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			f, _, _ := testFactory(t.TempDir())
			var got *InspectOptions
			cmd := NewCmdInspect(f, func(_ context.Context, o *InspectOptions) error { got = o; return nil })
			cmd.SetArgs(append([]string{"trace"}, strings.Fields(tc.args)...))
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if tc.wantErr != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want a usage error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			type flags struct {
				Session                        string
				JSON, Analyze, Transcript, Web bool
				Addr                           string
			}
			g := flags{got.Session, got.JSON, got.Analyze, got.Transcript, got.Web, got.Addr}
			w := tc.want
			if want := (flags{w.Session, w.JSON, w.Analyze, w.Transcript, w.Web, w.Addr}); g != want {
				t.Errorf("options = %+v, want %+v", g, want)
			}
		})
	}
}

func TestInspectTraceOutputs(t *testing.T) {
	home := t.TempDir()
	id := recordSession(t, home)
	run := func(args ...string) string {
		t.Helper()
		f, out, errOut := testFactory(home)
		if code := Main(context.Background(), f, append([]string{"inspect", "trace"}, args...)); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out.String()
	}

	timeline := run("last")
	for _, want := range []string{"session " + id, "turn 1: do the tests pass?", "shell_exec", "exit 1", "turn 1 done"} {
		if !strings.Contains(timeline, want) {
			t.Errorf("timeline lacks %q:\n%s", want, timeline)
		}
	}

	lines := strings.Split(strings.TrimSpace(run(id[:12], "--json")), "\n")
	var types []string
	for _, l := range lines {
		var e agent.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("--json line %q: %v", l, err)
		}
		types = append(types, e.Type)
	}
	if types[0] != agent.EventSessionStarted || types[len(types)-1] != agent.EventTurnFinished {
		t.Errorf("--json event types = %v", types)
	}

	text := run(id, "--analyze")
	for _, want := range []string{"model calls 2", "tool calls 1", "shell runs 1 · failed 1", "test runs 1 · failed 1 · never passed"} {
		if !strings.Contains(text, want) {
			t.Errorf("--analyze lacks %q:\n%s", want, text)
		}
	}
	var rep trace.Report
	if err := json.Unmarshal([]byte(run(id, "--analyze", "--json")), &rep); err != nil || rep.Tests.Failed != 1 || rep.ModelCalls != 2 {
		t.Errorf("--analyze --json: %+v, %v", rep, err)
	}

	tr := run(id, "--transcript")
	for _, want := range []string{"## Turn 1 · done", "do the tests pass?", "→ shell_exec go test ./... [exit 1]", "    | --- FAIL: TestX", "TestX fails."} {
		if !strings.Contains(tr, want) {
			t.Errorf("--transcript lacks %q:\n%s", want, tr)
		}
	}
}

func TestInspectTraceWebServesUntilCancelled(t *testing.T) {
	home := t.TempDir()
	id := recordSession(t, home)
	f, out, _ := testFactory(home)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var status int
	var view trace.View
	opts := &InspectOptions{IO: f.IO, Home: home, Workdir: "/ws", Session: "last", Web: true, Addr: "127.0.0.1:0",
		Ready: func(url string) {
			defer cancel()
			res, err := http.Get(url + "api/trace")
			if err != nil {
				t.Error(err)
				return
			}
			defer res.Body.Close()
			status = res.StatusCode
			if err := json.NewDecoder(res.Body).Decode(&view); err != nil {
				t.Error(err)
			}
		}}
	if err := runInspectTrace(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if status != 200 || view.Session.ID != id || len(view.Turns) != 1 {
		t.Errorf("GET /api/trace: %d, session %q, %d turns", status, view.Session.ID, len(view.Turns))
	}
	if !strings.Contains(out.String(), "trace of session "+id+" at http://127.0.0.1:") {
		t.Errorf("printed %q", out.String())
	}
}

func TestInspectTraceUnknownSession(t *testing.T) {
	home := t.TempDir()
	recordSession(t, home)
	f, _, errOut := testFactory(home)
	if code := Main(context.Background(), f, []string{"inspect", "trace", "zzzz"}); code != ExitFailed {
		t.Errorf("exit %d", code)
	}
	if !strings.Contains(errOut.String(), "godwit sessions") {
		t.Errorf("stderr = %q", errOut.String())
	}
}

func TestInspectTraceCreatesNoDatabase(t *testing.T) {
	home := t.TempDir()
	f, _, errOut := testFactory(home)
	if code := Main(context.Background(), f, []string{"inspect", "trace", "last"}); code != ExitFailed {
		t.Errorf("exit %d", code)
	}
	if !strings.Contains(errOut.String(), "no sessions recorded") {
		t.Errorf("stderr = %q", errOut.String())
	}
	if _, err := os.Stat(wiring.DBPath(home)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("inspect created %s", wiring.DBPath(home))
	}
}

func TestWriteSessionsMarksSubAgents(t *testing.T) {
	var b strings.Builder
	writeSessions(&b, []store.SessionSummary{
		{Session: store.Session{ID: "01parent", Title: "fix the parser", Workspace: "/home/u/src/parser"}, Turns: 2, Cost: 0.5},
		{Session: store.Session{ID: "01child", ParentID: "01parent", Title: "find the callers", Workspace: "/home/u/src/parser"}, Turns: 1, Cost: 0.1},
	}, "/home/u")
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[1], "  fix the parser") || !strings.Contains(lines[1], " ~/src/parser ") ||
		!strings.HasSuffix(lines[2], "  (sub-agent of 01parent) find the callers") {
		t.Errorf("sessions:\n%s", b.String())
	}
}

package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/goldentest"
	"github.com/godwit/godwit/tool"
)

// newShell returns a Shell over a fresh workspace with test-friendly
// options; edit tweaks them. The Shell is closed when the test ends.
func newShell(t *testing.T, edit ...func(*Options)) *Shell {
	t.Helper()
	opts := Options{Workdir: t.TempDir(), KillGrace: 200 * time.Millisecond}
	for _, e := range edit {
		e(&opts)
	}
	s := New(opts)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// call runs the tool with args given as a Go value.
func call(ctx context.Context, t *testing.T, s *Shell, args any) (tool.Result, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return s.Run(ctx, raw)
}

// mustCall runs the tool and fails the test on an error.
func mustCall(t *testing.T, s *Shell, args any) tool.Result {
	t.Helper()
	res, err := call(context.Background(), t, s, args)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return res
}

type m = map[string]any

func TestSpecSize(t *testing.T) {
	spec := New(Options{Workdir: "/w"}).Spec()
	if !json.Valid(spec.Schema) {
		t.Fatalf("schema is not JSON: %s", spec.Schema)
	}
	if strings.Contains(spec.Description, "{shell}") {
		t.Fatalf("placeholder left in description: %q", spec.Description)
	}
	got := fmt.Sprintf("%s description=%d schema=%d\n", spec.Name, len(spec.Description), len(spec.Schema))
	// A change in size must be deliberate: -update rewrites the pin.
	goldentest.Check(t, "spec_size.golden", []byte(got))
}

func TestBadArgs(t *testing.T) {
	s := newShell(t)
	for _, tc := range []struct {
		name string
		args string
		want string // in the message or remedy
	}{
		{"not an object", `[1]`, "bad arguments"},
		{"unknown field", `{"command":"ls","cwd":"sub"}`, `unknown field "cwd"`},
		{"wrong type", `{"command":"ls","timeout_s":"10"}`, "bad arguments"},
		{"empty command", `{"command":"  "}`, "command is empty"},
		{"no args", `{}`, "command is empty"},
		{"unknown action", `{"action":"kill","job_id":"j1"}`, "unknown action"},
		{"zero timeout", `{"command":"ls","timeout_s":0}`, "out of range"},
		{"timeout above max", `{"command":"ls","timeout_s":601}`, "timeout_s <= 600"},
		{"timeout with background", `{"command":"ls","timeout_s":5,"background":true}`, "background"},
		{"job_id on run", `{"command":"ls","job_id":"j1"}`, "job_id does not apply"},
		{"lines on run", `{"command":"ls","lines":3}`, "lines does not apply"},
		{"command on logs", `{"action":"logs","job_id":"j1","command":"ls"}`, "command does not apply"},
		{"background on stop", `{"action":"stop","job_id":"j1","background":true}`, "does not apply"},
		{"status without id", `{"action":"status"}`, "needs job_id"},
		{"list with id", `{"action":"list","job_id":"j1"}`, "list takes no job_id"},
		{"lines on stop", `{"action":"stop","job_id":"j1","lines":2}`, "lines does not apply"},
		{"negative lines", `{"action":"logs","job_id":"j1","lines":-1}`, "positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, fn := range []func() error{
				func() error { _, err := s.Run(context.Background(), json.RawMessage(tc.args)); return err },
				func() error { _, err := s.Access(json.RawMessage(tc.args)); return err },
			} {
				err := fn()
				var te *tool.ToolError
				if !errors.As(err, &te) || te.Code != tool.CodeBadArgs {
					t.Fatalf("err = %v, want BAD_ARGS", err)
				}
				if !strings.Contains(te.Error(), tc.want) {
					t.Errorf("error %q does not mention %q", te.Error(), tc.want)
				}
				if te.Remedy == "" {
					t.Errorf("no remedy in %q", te.Error())
				}
			}
		})
	}
}

func TestAccess(t *testing.T) {
	s := newShell(t)
	long := "echo " + strings.Repeat("x", 100)
	for _, tc := range []struct {
		args    string
		want    tool.Access
		preview bool
	}{
		{`{"command":"go test ./..."}`, tool.Access{Exclusive: true, Mutates: true, Command: "go test ./...", Summary: "run: go test ./..."}, false},
		{`{"action":"run","command":"npm start","background":true}`, tool.Access{Exclusive: true, Mutates: true, Command: "npm start", Summary: "run in background: npm start"}, false},
		{`{"command":"` + long + `"}`, tool.Access{Exclusive: true, Mutates: true, Command: long, Summary: "run: " + long[:79] + "…"}, true},
		{`{"command":"make\nmake install"}`, tool.Access{Exclusive: true, Mutates: true, Command: "make\nmake install", Summary: "run: make …"}, true},
		{`{"action":"list"}`, tool.Access{Summary: "list jobs"}, false},
		{`{"action":"status","job_id":"j1"}`, tool.Access{Summary: "status job j1"}, false},
		{`{"action":"logs","job_id":"j1","lines":5}`, tool.Access{Summary: "logs job j1"}, false},
		{`{"action":"stop","job_id":"j1"}`, tool.Access{Summary: "stop job j1"}, false},
	} {
		got, err := s.Access(json.RawMessage(tc.args))
		if err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		if tc.preview {
			tc.want.Preview = tc.want.Command
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.args, got, tc.want)
		}
	}
}

func TestRelativeWorkdirIsFatal(t *testing.T) {
	s := New(Options{Workdir: "rel"})
	_, err := call(context.Background(), t, s, m{"command": "true"})
	if !tool.IsFatal(err) {
		t.Fatalf("err = %v, want a fatal error", err)
	}
}

func TestProviderKeysDoNotReachCommands(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-secret-value")
	t.Setenv("GROQ_TOKEN", "sk-secret-value")
	t.Setenv("GODWIT_VISIBLE", "yes")
	sh := New(Options{Workdir: t.TempDir(), Secrets: []string{"GROQ_TOKEN"}})
	defer sh.Close()
	res, err := sh.Run(context.Background(), json.RawMessage(`{"command":"env"}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Content, "sk-secret-value") {
		t.Error("a provider key reached the command's environment")
	}
	if !strings.Contains(res.Content, "GODWIT_VISIBLE=yes") {
		t.Error("ordinary variables must still be inherited")
	}
}

// A shell without jobs (a sub-agent's) offers and takes only foreground
// runs, so nothing it starts outlives the call.
func TestNoJobs(t *testing.T) {
	s := newShell(t, func(o *Options) { o.NoJobs = true })
	spec := s.Spec()
	if strings.Contains(spec.Description, "background") || strings.Contains(string(spec.Schema), "job_id") ||
		strings.Contains(string(spec.Schema), "background") || !json.Valid(spec.Schema) {
		t.Errorf("spec offers jobs: %s\n%s", spec.Description, spec.Schema)
	}
	if res := mustCall(t, s, m{"command": "echo hi"}); !strings.Contains(res.Content, "hi") {
		t.Errorf("run = %q", res.Content)
	}
	for _, args := range []m{
		{"command": "sleep 30", "background": true},
		{"action": "list"},
		{"action": "stop", "job_id": "j1"},
	} {
		_, err := call(context.Background(), t, s, args)
		var te *tool.ToolError
		if !errors.As(err, &te) || te.Code != tool.CodeBadArgs || !strings.Contains(te.Message, "foreground commands only") {
			t.Errorf("%v: err %v, want BAD_ARGS saying foreground only", args, err)
		}
	}
}

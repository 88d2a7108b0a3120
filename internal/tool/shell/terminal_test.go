//go:build unix

package shell

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/godwit/godwit/tool"
)

// fakeTerminal records the commands it is given and answers with a
// scripted result; block makes it wait for ctx and report partial output.
type fakeTerminal struct {
	mu    sync.Mutex
	cmds  []*exec.Cmd
	limit int
	res   TerminalResult
	err   error
	block bool
}

func (f *fakeTerminal) Run(ctx context.Context, cmd *exec.Cmd, limit int) (TerminalResult, error) {
	f.mu.Lock()
	f.cmds = append(f.cmds, cmd)
	f.limit = limit
	f.mu.Unlock()
	if f.block {
		<-ctx.Done()
		return TerminalResult{Output: "partial\n"}, nil
	}
	return f.res, f.err
}

func TestTerminalRunsForegroundCommands(t *testing.T) {
	code := 3
	tests := []struct {
		name     string
		term     *fakeTerminal
		args     m
		wantCode string // tool error code, "" for success
		want     []string
		exit     *int
	}{
		{"exit status and trailer", &fakeTerminal{res: TerminalResult{Output: "hello\n", ExitCode: &code}},
			m{"command": "echo hello"}, "", []string{"hello\n[exit 3 · "}, &code},
		{"truncated output says so", &fakeTerminal{res: TerminalResult{Output: "tail", Truncated: true, ExitCode: ptr(0)}},
			m{"command": "yes"}, "", []string{"[… earlier output cut]\ntail\n[exit 0"}, ptr(0)},
		{"no output", &fakeTerminal{res: TerminalResult{ExitCode: ptr(0)}},
			m{"command": "true"}, "", []string{"no output]"}, ptr(0)},
		{"signal", &fakeTerminal{res: TerminalResult{Signal: "SIGKILL"}},
			m{"command": "sleep 9"}, "", []string{"[killed by SIGKILL"}, nil},
		{"timeout keeps output", &fakeTerminal{block: true},
			m{"command": "sleep 9", "timeout_s": 0.05}, tool.CodeTimeout, []string{"timed out after 0.05s", "partial"}, nil},
		{"terminal failure", &fakeTerminal{err: errors.New("no such terminal")},
			m{"command": "ls"}, tool.CodeFailed, []string{"editor's terminal", "no such terminal"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newShell(t, func(o *Options) { o.Terminal = tt.term; o.OutputLimit = 1234 })
			res, err := call(context.Background(), t, s, tt.args)
			got := res.Content
			if tt.wantCode != "" {
				te := tool.AsToolError(err)
				if err == nil || te.Code != tt.wantCode {
					t.Fatalf("err = %v, want code %s", err, tt.wantCode)
				}
				got = te.Error()
			} else if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("result %q lacks %q", got, w)
				}
			}
			if tt.wantCode == "" && deref(res.ExitCode) != deref(tt.exit) {
				t.Errorf("exit code = %v, want %v", deref(res.ExitCode), deref(tt.exit))
			}
			if len(tt.term.cmds) != 1 || tt.term.limit != 1234 {
				t.Fatalf("terminal got %d commands with limit %d", len(tt.term.cmds), tt.term.limit)
			}
			cmd := tt.term.cmds[0]
			if cmd.Dir != s.opts.Workdir || !slices.Contains(cmd.Args, tt.args["command"].(string)) {
				t.Errorf("command = %v in %s", cmd.Args, cmd.Dir)
			}
		})
	}
}

func TestTerminalCancel(t *testing.T) {
	term := &fakeTerminal{block: true}
	s := newShell(t, func(o *Options) { o.Terminal = term })
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	_, err := call(ctx, t, s, m{"command": "sleep 9"})
	if te := tool.AsToolError(err); err == nil || te.Code != tool.CodeCancelled {
		t.Fatalf("err = %v, want CANCELLED", err)
	}
}

func TestTerminalGetsWrappedCommand(t *testing.T) {
	term := &fakeTerminal{res: TerminalResult{ExitCode: ptr(0)}}
	s := newShell(t, func(o *Options) {
		o.Terminal = term
		o.Wrap = func(cmd *exec.Cmd) error {
			cmd.Args = append([]string{"/sandbox", cmd.Path}, cmd.Args[1:]...)
			cmd.Path = "/sandbox"
			return nil
		}
	})
	mustCall(t, s, m{"command": "ls"})
	// The supervisor, then the sandboxed shell.
	if cmd := term.cmds[0]; cmd.Path != s.exe || strings.Join(cmd.Args[1:4], " ") != supervisorArg+" /sandbox /sandbox" || cmd.Args[4] != s.shellPath {
		t.Errorf("the terminal ran %s %v, not the supervised, sandboxed command", cmd.Path, cmd.Args)
	}

	refusing := newShell(t, func(o *Options) {
		o.Terminal = term
		o.Wrap = func(*exec.Cmd) error { return errors.New("no landlock") }
	})
	_, err := call(context.Background(), t, refusing, m{"command": "ls"})
	if te := tool.AsToolError(err); err == nil || te.Code != tool.CodeDenied {
		t.Errorf("err = %v, want DENIED", err)
	}
}

func TestTerminalBackgroundStaysLocal(t *testing.T) {
	term := &fakeTerminal{}
	s := newShell(t, func(o *Options) { o.Terminal = term })
	res := mustCall(t, s, m{"command": "true", "background": true})
	if !strings.HasPrefix(res.Content, "started job ") {
		t.Errorf("background run: %q", res.Content)
	}
	if len(term.cmds) != 0 {
		t.Errorf("a background job went to the terminal")
	}
}

// TestKeepOnly: the terminal's supervisor keeps only the variables godwit
// gave the command, the last value of each.
func TestKeepOnly(t *testing.T) {
	got := keepOnly([]string{"OPENAI_API_KEY=k", "PATH=/editor", "HOME=/h", "PATH=/godwit", "X"}, []string{"PATH", "HOME"})
	want := []string{"HOME=/h", "PATH=/godwit"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("keepOnly = %q, want %q", got, want)
	}
}

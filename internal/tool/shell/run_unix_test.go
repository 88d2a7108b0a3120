//go:build unix

package shell

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

func TestRunForeground(t *testing.T) {
	s := newShell(t)
	for _, tc := range []struct {
		name     string
		command  string
		exit     *int
		contains []string // in order
	}{
		{"success", "echo hello", ptr(0), []string{"hello\n[exit 0 · "}},
		{"exit code", "echo oops; exit 3", ptr(3), []string{"oops\n", "[exit 3 · "}},
		{"no output", "true", ptr(0), []string{"[exit 0 · ", " · no output]"}},
		{"stderr merged in order", "echo out; echo err >&2; echo out2", ptr(0), []string{"out\nerr\nout2\n[exit 0"}},
		{"no trailing newline", "printf abc", ptr(0), []string{"abc\n[exit 0"}},
		{"stdin is empty", "cat; read x || echo eof", ptr(0), []string{"eof\n[exit 0"}},
		{"runs in workdir", "pwd", ptr(0), []string{s.opts.Workdir + "\n"}},
		{"quiet env defaults", "echo $NO_COLOR $GIT_TERMINAL_PROMPT", ptr(0), []string{"1 0\n"}},
		{"signal", "kill -SEGV $$", nil, []string{"[signal: segmentation fault"}},
		{"no controlling terminal", "exec </dev/tty || echo notty", ptr(0), []string{"notty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := mustCall(t, s, m{"command": tc.command, "timeout_s": 30})
			if res.IsError {
				t.Errorf("IsError set for %q", tc.command)
			}
			if !containsInOrder(res.Content, tc.contains...) {
				t.Errorf("content %q lacks %q", res.Content, tc.contains)
			}
			if !regexp.MustCompile(`\[[^\]]* · \d+\.\d\ds[^\]]*\]$`).MatchString(res.Content) {
				t.Errorf("no trailer with a duration at the end of %q", res.Content)
			}
			if (res.ExitCode == nil) != (tc.exit == nil) || (res.ExitCode != nil && *res.ExitCode != *tc.exit) {
				t.Errorf("ExitCode = %v, want %v", deref(res.ExitCode), deref(tc.exit))
			}
		})
	}
}

func TestEnvOption(t *testing.T) {
	s := newShell(t, func(o *Options) { o.Env = []string{"NO_COLOR=", "GODWIT_TEST_VAR=from-options"} })
	res := mustCall(t, s, m{"command": `echo "[$NO_COLOR] $GODWIT_TEST_VAR"`})
	if !strings.HasPrefix(res.Content, "[] from-options\n") {
		t.Errorf("content = %q", res.Content)
	}
}

func TestRunCapsOutput(t *testing.T) {
	s := newShell(t, func(o *Options) { o.OutputLimit = 1000 })
	res := mustCall(t, s, m{"command": "seq 1 10000"})
	if len(res.Content) > 1200 {
		t.Errorf("content is %d bytes, limit 1000", len(res.Content))
	}
	if !strings.HasPrefix(res.Content, "1\n2\n3\n") {
		t.Errorf("head lost: %.40q", res.Content)
	}
	if !strings.Contains(res.Content, "9999\n10000\n[exit 0") {
		t.Errorf("tail lost: %q", res.Content[len(res.Content)-60:])
	}
	if !regexp.MustCompile(`\n\[… \d+ bytes, \d+ lines cut …\]\n`).MatchString(res.Content) {
		t.Errorf("no cut note in %q", res.Content)
	}
}

// The timeout is 10 s, not 1: the script must have started and recorded
// its pids before it fires, and a loaded machine can take over a second
// to start the supervisor and the shell. The cases run in parallel so
// the wait is paid once.
func TestTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		body string
		n    int // pids the script records
	}{
		{"children die on SIGTERM", `
sleep 1000 & echo $! >> "$1"
sleep 1000 & echo $! >> "$1"
echo $$ >> "$1"
echo started
sleep 1000
`, 3},
		{"children ignore SIGTERM", `
trap '' TERM
sleep 1000 & echo $! >> "$1"
sh -c 'trap "" TERM; echo $$ >> "$1"; sleep 1000 & echo $! >> "$1"; wait' sh "$1" &
echo $$ >> "$1"
echo started
wait
`, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newShell(t)
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "pids")
			reapOnCleanup(t, pidFile)
			cmd := "sh " + script(t, dir, tc.body) + " " + pidFile
			_, err := call(context.Background(), t, s, m{"command": cmd, "timeout_s": 10})
			var te *tool.ToolError
			if !errors.As(err, &te) || te.Code != tool.CodeTimeout {
				t.Fatalf("err = %v, want TIMEOUT", err)
			}
			if !strings.Contains(te.Message, "started") || !strings.Contains(te.Remedy, "background:true") {
				t.Errorf("timeout error lacks the output or the remedy: %v", te)
			}
			pids := readPids(t, pidFile)
			if len(pids) != tc.n {
				t.Fatalf("recorded %d pids, want %d", len(pids), tc.n)
			}
			assertDead(t, pids)
		})
	}
}

func TestCancelKillsGroup(t *testing.T) {
	s := newShell(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	reapOnCleanup(t, pidFile)
	cmd := "sh " + script(t, dir, `
trap '' TERM
sleep 1000 & echo $! >> "$1"
echo $$ >> "$1"
wait
`) + " " + pidFile
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitPids(t, pidFile, 2)
		cancel()
	}()
	_, err := call(ctx, t, s, m{"command": cmd})
	if code := tool.AsToolError(err).Code; code != tool.CodeCancelled {
		t.Fatalf("err = %v, want CANCELLED", err)
	}
	assertDead(t, readPids(t, pidFile))
}

func TestForegroundLeftoversAreKilled(t *testing.T) {
	s := newShell(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	reapOnCleanup(t, pidFile)
	res := mustCall(t, s, m{"command": "sleep 1000 & echo $! > " + pidFile + "; echo done"})
	if !strings.Contains(res.Content, "done\n[exit 0 · ") || !strings.Contains(res.Content, "killed the processes it left running") {
		t.Errorf("content = %q", res.Content)
	}
	assertDead(t, readPids(t, pidFile))
}

func TestWrapHook(t *testing.T) {
	var seen []string
	s := newShell(t, func(o *Options) {
		o.Wrap = func(cmd *exec.Cmd) error {
			seen = append(seen, cmd.Args[len(cmd.Args)-1])
			if strings.Contains(cmd.Args[len(cmd.Args)-1], "forbidden") {
				return errors.New("landlock says no")
			}
			return nil
		}
	})
	mustCall(t, s, m{"command": "echo ok"})
	_, err := call(context.Background(), t, s, m{"command": "echo forbidden"})
	if te := tool.AsToolError(err); te.Code != tool.CodeDenied || !strings.Contains(te.Message, "landlock says no") {
		t.Errorf("err = %v, want DENIED naming the cause", err)
	}
	if strings.Join(seen, "|") != "echo ok|echo forbidden" {
		t.Errorf("Wrap saw %q", seen)
	}
}

// TestThroughRunner runs the real tool under the real runner, several
// calls at once, under -race: a non-zero exit reaches the model as a
// normal result with its exit code.
func TestThroughRunner(t *testing.T) {
	s := newShell(t)
	reg, err := tool.NewRegistry(s)
	if err != nil {
		t.Fatal(err)
	}
	r := tool.NewRunner(reg, tool.RunnerOptions{Approver: tool.AllowAll{}})
	calls := []llm.ToolCall{
		{ID: "1", Name: Name, Args: json.RawMessage(`{"command":"exit 4"}`)},
		{ID: "2", Name: Name, Args: json.RawMessage(`{"command":"sleep 1000","background":true}`)},
		{ID: "3", Name: Name, Args: json.RawMessage(`{"action":"list"}`)},
		{ID: "4", Name: Name, Args: json.RawMessage(`{"command":"echo hi"}`)},
	}
	out, err := r.Run(context.Background(), calls, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := out[0]; o.Result.IsError || o.Result.ExitCode == nil || *o.Result.ExitCode != 4 {
		t.Errorf("exit 4: %+v", o.Result)
	}
	if !strings.HasPrefix(out[1].Result.Content, "started job j1") {
		t.Errorf("background: %q", out[1].Result.Content)
	}
	if !out[0].Access.Exclusive || out[2].Access.Exclusive {
		t.Errorf("access: run exclusive %v, list exclusive %v", out[0].Access.Exclusive, out[2].Access.Exclusive)
	}
	if !strings.HasPrefix(out[3].Result.Content, "hi\n") {
		t.Errorf("echo: %q", out[3].Result.Content)
	}
}

func TestConcurrentCalls(t *testing.T) {
	s := newShell(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			res, err := call(context.Background(), t, s, m{"command": "echo x"})
			if err != nil || !strings.HasPrefix(res.Content, "x\n") {
				t.Errorf("run: %q %v", res.Content, err)
			}
		})
		wg.Go(func() {
			if _, err := call(context.Background(), t, s, m{"command": "sleep 1000", "background": true}); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() { _, _ = call(context.Background(), t, s, m{"action": "list"}) })
	}
	wg.Wait()
	if got := len(s.jobs); got != 8 {
		t.Errorf("%d jobs, want 8", got)
	}
}

func containsInOrder(s string, parts ...string) bool {
	for _, p := range parts {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}

func ptr(i int) *int { return &i }

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestLiveOutput: a running command's newest lines reach whoever hears
// the call's progress before it ends (a progress bar's carriage returns
// keep what was drawn last), and the result still holds the whole output.
func TestLiveOutput(t *testing.T) {
	s := newShell(t)
	gate := filepath.Join(s.opts.Workdir, "go")
	reports := make(chan tool.Progress, 100)
	ctx := tool.WithProgress(context.Background(), func(p tool.Progress) {
		select {
		case reports <- p:
		default:
		}
	})
	done := make(chan tool.Result, 1)
	go func() {
		res, err := call(ctx, t, s, m{"command": "printf 'one\\ntwo\\n10%%\\r50%%\\n'; while [ ! -e go ]; do sleep 0.05; done; echo three", "timeout_s": 60})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	for seen := false; !seen; {
		select {
		case p := <-reports:
			seen = p.Output == "one\ntwo\n50%"
		case <-time.After(time.Minute): // a hang guard
			t.Fatal("the running command's lines were never reported")
		}
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if res := <-done; !strings.HasPrefix(res.Content, "one\ntwo\n10%\r50%\nthree\n[exit 0") {
		t.Errorf("the result is %q", res.Content)
	}
}

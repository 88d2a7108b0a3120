package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/peertest"
	"github.com/godwit/godwit/llm/llmtest"
)

// wine is the Windows build under wine 8.0, with the project's stand-in
// for bcryptprimitives.dll (.ci/wine), which wine lacks and every Go
// Windows program loads: a prefix of its own, and godwit.exe built for
// it.
type wine struct {
	bin, exe string
	env      []string
}

func newWine(t *testing.T) *wine {
	t.Helper()
	bin, gcc := "/usr/lib/wine/wine64", "x86_64-w64-mingw32-gcc"
	if _, err := os.Stat(bin); err != nil {
		peertest.Missing(t, "no wine: apt-get install wine64 gcc-mingw-w64-x86-64-win32 (.ci/run does)")
	}
	if _, err := exec.LookPath(gcc); err != nil {
		peertest.Missing(t, "no mingw-w64 compiler: apt-get install gcc-mingw-w64-x86-64-win32 (.ci/run does)")
	}
	dir := t.TempDir()
	w := &wine{bin: bin, exe: filepath.Join(dir, "godwit.exe"),
		env: append(baseEnv(), "WINEPREFIX="+filepath.Join(dir, "prefix"), "WINEDEBUG=-all")}
	t.Cleanup(func() { // wineserver lingers; it holds the prefix
		kill := exec.Command("/usr/lib/wine/wineserver", "-k")
		kill.Env = w.env
		_ = kill.Run()
	})
	w.must(t, exec.Command(bin, "wineboot", "-i"))
	dll := filepath.Join(dir, "prefix", "drive_c", "windows", "system32", "bcryptprimitives.dll")
	w.must(t, exec.Command(gcc, "-shared", "-O2", "-o", dll, "../../.ci/wine/bcryptprimitives.c", "-ladvapi32"))
	build := exec.Command("go", "run", "-exec", "cp", ".", w.exe) // cached, as in TestMain
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building godwit.exe: %v\n%s", err, out)
	}
	return w
}

func (w *wine) must(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if cmd.Env == nil {
		cmd.Env = w.env
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
}

// run runs godwit.exe under wine in ws, with home as GODWIT_HOME.
func (w *wine) run(t *testing.T, home, ws string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	cmd := exec.CommandContext(ctx, w.bin, append([]string{w.exe}, args...)...)
	cmd.Dir, cmd.Env = ws, append(w.env, "GODWIT_HOME="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// Issue 26: the Windows build, as a user runs it, through a scripted
// session: grep and file_read, an edit that keeps CRLF, a write to a path
// with `\`, a command, the store, then undo and inspect trace.
func TestWindowsSessionUnderWine(t *testing.T) {
	w := newWine(t)
	srv := llmtest.NewTestServer(t,
		llmtest.ChatReply(llmtest.ChatToolCallAt(0, "c1", "grep", jsonArgs(map[string]string{"pattern": "func Add"})),
			llmtest.ChatToolCallAt(1, "c2", "file_read", jsonArgs(map[string]string{"path": "calc.go"})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
		llmtest.ChatReply(llmtest.ChatToolCallAt(0, "c3", "file_edit", jsonArgs(map[string]string{"path": "notes.txt", "old_text": "two", "new_text": "TWO"})),
			llmtest.ChatToolCallAt(1, "c4", "file_write", jsonArgs(map[string]string{"path": `sub\new.txt`, "content": "made on windows\n"})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
		llmtest.ChatReply(llmtest.ChatToolCall("c5", "shell_exec", jsonArgs(map[string]string{"command": "Write-Output hi"})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
		llmtest.ChatTextReply("done", 10, 1))
	home, ws := setup(t, srv.URL())
	crlf := "one\r\ntwo\r\nthree\r\n"
	for name, body := range map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n", "notes.txt": crlf} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	r := w.run(t, home, ws, "run", "--yes", "--model", "local/m", "look, edit, write, run")
	if r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stderr, "without a sandbox"); n != 1 {
		t.Errorf("the sandbox warning is printed %d times, want once:\n%s", n, r.stderr)
	}
	reqs := srv.Requests()
	if got := toolResult(t, reqs[1].Body, "c1"); !strings.Contains(got, "calc.go") {
		t.Errorf("grep found %q", got)
	}
	if got := toolResult(t, reqs[1].Body, "c2"); !strings.Contains(got, "func Add") {
		t.Errorf("file_read gave %q", got)
	}
	for _, id := range []string{"c3", "c4"} {
		if got := toolResult(t, reqs[2].Body, id); strings.Contains(strings.ToLower(got), "error") {
			t.Errorf("%s: %q", id, got)
		}
	}
	if got := toolResult(t, reqs[3].Body, "c5"); !strings.Contains(got, "exit 0") && !strings.Contains(got, "exit code 0") {
		t.Logf("shell_exec under wine's PowerShell stand-in: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "one\r\nTWO\r\nthree\r\n" {
		t.Errorf("the edit lost CRLF: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "sub", "new.txt")); string(b) != "made on windows\n" {
		t.Errorf("sub\\new.txt = %q", b)
	}

	r = w.run(t, home, ws, "undo", "last")
	// Undo removes a file through the workspace's os.Root, which on
	// Windows deletes by FileDispositionInformationEx (Windows 10 1607
	// on). Wine 8.0 answers it "Invalid function" where Windows would
	// delete, and where Go would fall back had wine said "not
	// supported": the same gap that fails os.RemoveAll in .ci/run.
	wineGap := r.code == 1 && strings.Count(r.stdout, "FAILED") == 1 && strings.Contains(r.stdout, "FAILED     sub/new.txt: removeat new.txt: Invalid function.")
	if r.code != 0 && !wineGap {
		t.Fatalf("undo: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != crlf {
		t.Errorf("undo restored %q, want %q", b, crlf)
	}
	if _, err := os.Stat(filepath.Join(ws, "sub")); wineGap {
		t.Log("wine 8.0 cannot delete through an os.Root (see above); sub\\new.txt stays")
	} else if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("undo left sub\\: %v", err)
	}
	r = w.run(t, home, ws, "inspect", "trace", "last")
	for _, want := range []string{`grep "func Add"`, "file_edit edit notes.txt: ok", "file_write create sub/new.txt: ok", "shell_exec run: Write-Output hi: exit 0", "undo: The user undid"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("inspect trace lacks %q:\n%s", want, r.stdout)
		}
	}
}

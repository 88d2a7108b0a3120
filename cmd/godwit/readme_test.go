package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godwit/godwit/llm/llmtest"
)

// readmePages are the user's docs whose examples TestREADMEExamples runs.
var readmePages = []string{"README.md", "docs/configuration.md", "docs/sessions.md", "docs/safety.md", "docs/editors.md", "docs/evals.md"}

// TestREADMEExamples runs the user docs' shell examples with the real
// binary, so the README and its pages cannot drift from what godwit does:
// every line of every ```sh block, with the docs' config.yaml (the one
// ```yaml block, in docs/configuration.md), README's ANTHROPIC_API_KEY
// and a fake Anthropic endpoint that answers "ok". Each must exit 0.
// Lines that build or test godwit itself are left out (this test runs
// the binary TestMain built).
func TestREADMEExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo and a dozen commands")
	}
	var shell, yamls []string
	for _, page := range readmePages {
		b, err := os.ReadFile(filepath.Join("../..", page))
		if err != nil {
			t.Fatal(err)
		}
		s, y := codeBlocks(string(b))
		shell, yamls = append(shell, s...), append(yamls, y...)
	}
	if len(shell) < 10 || len(yamls) != 1 {
		t.Fatalf("the docs have %d shell lines and %d yaml blocks; this test expects the examples and one config", len(shell), len(yamls))
	}

	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		calls.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, llmtest.AnthropicSSE(llmtest.AnthropicText("ok"), llmtest.AnthropicUsage(100, 1, 0, 0)))
	}))
	defer srv.Close()

	home, ws := t.TempDir(), filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(yamls[0]), 0o600); err != nil {
		t.Fatal(err)
	}
	if git, err := exec.LookPath("git"); err == nil {
		_ = exec.Command(git, "init", "-q", ws).Run() // for `git diff | ...`
	}
	bin := t.TempDir()
	if err := os.Symlink(binary, filepath.Join(bin, "godwit")); err != nil {
		t.Fatal(err)
	}
	env := append(baseEnv(), "GODWIT_HOME="+home, "ANTHROPIC_BASE_URL="+srv.URL, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	// The demo's `go test` writes Go's caches where they are.
	env = append(env, "GOCACHE="+goEnv(t, "GOCACHE"), "GOMODCACHE="+goEnv(t, "GOMODCACHE"))

	// A resident session (serve) runs in the background, as in a second
	// terminal, until the test ends; the docs' placeholder ids (01jxa,
	// named in a serve line's comment) become the ids the sessions print.
	ids := map[string]string{}
	var residents []*exec.Cmd
	defer func() {
		for _, c := range residents {
			_ = c.Process.Signal(os.Interrupt)
			_ = c.Wait()
		}
	}()
	ran, skipped := 0, false
	for _, line := range shell {
		cmdline, skip := readmeCommand(line)
		if skip != "" {
			t.Logf("not run (%s): %s", skip, line)
			continue
		}
		if name, val, ok := strings.Cut(strings.TrimPrefix(cmdline, "export "), "="); ok && strings.HasPrefix(cmdline, "export ") {
			env = append(env, name+"="+val)
			continue
		}
		for placeholder, id := range ids {
			cmdline = strings.ReplaceAll(cmdline, placeholder, id)
		}
		cmd := exec.Command("sh", "-c", cmdline)
		cmd.Dir, cmd.Env = ws, env
		if strings.HasPrefix(cmdline, "godwit serve") {
			id := startResident(t, cmd)
			residents = append(residents, cmd)
			if p := placeholderID.FindString(line); p != "" {
				ids[p] = id
			}
			ran++
			continue
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("README: %s\n%v\n%s", line, err, out)
		}
		t.Logf("$ %s\n%s", cmdline, out)
		skipped = skipped || strings.Contains(string(out), "fallback openai/gpt-5 is skipped: OPENAI_API_KEY is not set")
		if strings.Contains(string(out), "level=") {
			t.Errorf("README: %s prints raw log lines:\n%s", line, out)
		}
		ran++
	}
	if ran < 10 || calls.Load() == 0 {
		t.Errorf("ran %d README commands, %d model calls", ran, calls.Load())
	}
	if !skipped {
		t.Error("the README's config, with only ANTHROPIC_API_KEY set, never said its fallback is skipped")
	}
}

// placeholderID is how the docs write a session id they cannot know.
var placeholderID = regexp.MustCompile(`\b01jx[a-z]\b`)

// startResident starts a serve command and returns the session id it
// prints once it is ready for mail.
func startResident(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	cmd.Args = []string{"sh", "-c", "exec " + cmd.Args[2]} // signals reach godwit, not sh
	w := &readyWriter{ready: regexp.MustCompile(`serving session (\S+) \(pid`), id: make(chan string, 1)}
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The test stops its residents with Ctrl-C; this one, if the test
	// fails before it is on that list, must not outlive the test's
	// folders.
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	select {
	case id := <-w.id:
		return id
	case <-time.After(time.Minute):
		t.Fatalf("README: %s never said it was serving:\n%s", cmd.Args[2], w.text())
		return ""
	}
}

// readyWriter collects a resident's stderr and sends the first match of
// ready's group on id.
type readyWriter struct {
	ready *regexp.Regexp
	id    chan string
	mu    sync.Mutex
	buf   []byte
	sent  bool
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if m := w.ready.FindSubmatch(w.buf); m != nil && !w.sent {
		w.sent = true
		w.id <- string(m[1])
	}
	return len(p), nil
}

func (w *readyWriter) text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}

// codeBlocks returns the lines of a page's sh blocks and the bodies of
// its yaml blocks.
func codeBlocks(md string) (shell []string, yamls []string) {
	fence := regexp.MustCompile("(?ms)^```(sh|yaml)\n(.*?)^```")
	for _, m := range fence.FindAllStringSubmatch(md, -1) {
		if m[1] == "yaml" {
			yamls = append(yamls, m[2])
			continue
		}
		// A line ending in a backslash goes on, as it does in sh.
		joined := strings.ReplaceAll(m[2], "\\\n", "")
		for _, l := range strings.Split(joined, "\n") {
			if strings.TrimSpace(l) != "" {
				shell = append(shell, l)
			}
		}
	}
	return shell, yamls
}

// readmeCommand turns a docs line into the command to run: without its
// comment, with godwit from PATH. skip says why a line is not run.
func readmeCommand(line string) (cmd, skip string) {
	if i := strings.Index(line, "  #"); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(line, "go test"):
		return "", "the test suite itself"
	case strings.HasPrefix(line, "go build"):
		return "", "TestMain built the binary"
	}
	line = strings.Replace(line, "go run ./cmd/godwit", "godwit", 1)
	line = strings.ReplaceAll(line, "./godwit", "godwit")
	return line, ""
}

// TestDocsLinks checks that every relative link of the README and its
// pages names a file that exists, so a page moved or renamed cannot leave
// the front door pointing nowhere.
func TestDocsLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#:]+)(?:#[^)]*)?\)`)
	for _, page := range append(readmePages, "docs/json-events.md", "docs/architecture.md") {
		b, err := os.ReadFile(filepath.Join("../..", page))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := filepath.Join("../..", filepath.Dir(page), m[1])
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s links to %s, which does not exist", page, m[1])
			}
		}
	}
}

// TestCIRunsTheREADMETestCommand checks that .ci/run runs the README's
// test command as written, so what a user runs is what CI passed.
func TestCIRunsTheREADMETestCommand(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	shell, _ := codeBlocks(string(readme))
	n := 0
	for _, l := range shell {
		if strings.HasPrefix(l, "go test") {
			n++
			if !strings.Contains(string(ci), "\n"+l+"\n") {
				t.Errorf(".ci/run does not run the README's test command %q", l)
			}
		}
	}
	if n != 1 {
		t.Errorf("the README has %d go test lines in its sh blocks, want 1", n)
	}
}

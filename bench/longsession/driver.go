package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/godwit/godwit/event"
)

// buildGodwit builds cmd/godwit of the module the bench runs in.
func buildGodwit(ctx context.Context, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("finding the module: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the godwit module: run from the repository, or pass -godwit PATH")
	}
	bin := filepath.Join(dir, "godwit")
	// go run keeps the linked binary in the build cache, so the test
	// packages that drive godwit share one link; -exec cp copies it here.
	cmd := exec.CommandContext(ctx, "go", "run", "-exec", "cp", "./cmd/godwit", bin)
	cmd.Dir = filepath.Dir(mod)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building godwit: %w\n%s", err, msg)
	}
	return bin, nil
}

// keyEnv holds a dummy API key: the adapters send one, the endpoint
// ignores it.
const keyEnv = "LONGSESSION_API_KEY"

// writeHome writes a GODWIT_HOME whose config has one provider per wire
// format, "ls" and the format's name, all pointing at the endpoint, and
// then extra.
func writeHome(home, url, extra string) error {
	cfg := fmt.Sprintf(`providers:
  lschat:
    type: openai-chat
    base_url: %[1]s/v1
    api_key_env: %[2]s
  lsresponses:
    type: openai-responses
    base_url: %[1]s/v1
    api_key_env: %[2]s
  lsanthropic:
    type: anthropic
    base_url: %[1]s
    api_key_env: %[2]s
`, url, keyEnv)
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg+extra), 0o600)
}

// writeWorkspace makes a git repository holding files.
func writeWorkspace(ctx context.Context, dir string, files map[string]string) error {
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-qm", "init"},
	} {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %w\n%s", args[0], err, out)
		}
	}
	return nil
}

// turnRun is one `godwit run` process: one user turn.
type turnRun struct {
	Turn     int     `json:"turn"`
	Exit     int     `json:"exit"`
	Status   string  `json:"status,omitempty"` // turn.finished's status
	Error    string  `json:"error,omitempty"`
	Killed   string  `json:"killed,omitempty"` // why the bench stopped it
	Seconds  float64 `json:"seconds"`
	events   []event.Event
	sessions []string // session ids seen
}

// runTurn runs one turn process and waits for it, killing it after wall.
// register receives the function that kills it early (the endpoint calls
// it when the process passes the request cap).
func runTurn(ctx context.Context, bin, home, ws, model string, window int, sessionID, prompt string, reset, yes bool, wall time.Duration, register func(stop func())) turnRun {
	ctx, cancel := context.WithTimeout(ctx, wall)
	defer cancel()
	killedBy := make(chan string, 1)
	register(func() {
		select {
		case killedBy <- "more than the request cap":
		default:
		}
		cancel()
	})
	args := []string{"run", "--json", "--model", model, "--context-window", strconv.Itoa(window), "--prompt", prompt}
	if sessionID != "" {
		args = append(args, "--session", sessionID)
	}
	if reset {
		args = append(args, "--reset")
	}
	if yes {
		args = append(args, "--yes")
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = ws
	// A loaded machine starts an MCP server (python) in more than the
	// default 5 s wait; the sessions measure the window, not the start.
	cmd.Env = append(cleanEnv(), "GODWIT_HOME="+home, keyEnv+"=dummy", "GODWIT_MCP_WAIT=60s")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	tr := turnRun{Seconds: time.Since(start).Seconds()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		tr.Exit = ee.ExitCode()
	case err != nil:
		tr.Exit, tr.Error = -1, err.Error()
	}
	select {
	case why := <-killedBy:
		tr.Killed = why
	default:
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			tr.Killed = fmt.Sprintf("ran longer than %s", wall)
		}
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var ev event.Event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		tr.events = append(tr.events, ev)
		if ev.SessionID != "" && (len(tr.sessions) == 0 || tr.sessions[len(tr.sessions)-1] != ev.SessionID) {
			tr.sessions = append(tr.sessions, ev.SessionID)
		}
		if ev.Finished != nil {
			tr.Status = ev.Finished.Status
			if ev.Finished.Error != "" {
				tr.Error = ev.Finished.Error
			}
		}
	}
	if tr.Exit != 0 && tr.Error == "" {
		tr.Error = lastLine(errb.String())
	}
	return tr
}

// cleanEnv is the environment without godwit's variables or provider
// keys, so the user's own setup cannot change what is measured.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GODWIT_") || strings.HasSuffix(name, "_API_KEY") || strings.HasSuffix(name, "_BASE_URL") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

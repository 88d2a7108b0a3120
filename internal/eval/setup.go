package eval

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// setup fills ws: Copy, then Files, then Script. It returns the content,
// after setup, of the files checks want unchanged.
func setup(ctx context.Context, t *Task, ws string) (map[string][]byte, error) {
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return nil, err
	}
	if t.Setup.Copy != "" {
		if err := os.CopyFS(ws, os.DirFS(filepath.Join(t.Dir, t.Setup.Copy))); err != nil {
			return nil, fmt.Errorf("copy %s: %w", t.Setup.Copy, err)
		}
	}
	for _, f := range t.Setup.Files {
		p := filepath.Join(ws, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(f.Content()), 0o644); err != nil {
			return nil, err
		}
	}
	if s := t.Setup.Script; s != "" {
		if out, err := shell(ctx, ws, s, 2*time.Minute); err != nil {
			return nil, fmt.Errorf("script: %v\n%s", err, tail(out, 800))
		}
	}
	before := map[string][]byte{}
	for _, fc := range t.Checks.Files {
		if !fc.Unchanged {
			continue
		}
		b, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(fc.Path)))
		if err != nil {
			return nil, fmt.Errorf("checks.files: %s is to stay unchanged, but setup did not create it: %w", fc.Path, err)
		}
		before[fc.Path] = b
	}
	return before, nil
}

// shell runs command with sh -c in dir, bounded by timeout, and returns
// its combined output.
func shell(ctx context.Context, dir, command string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("timed out after %s", timeout)
	}
	return out.String(), err
}

// tail returns the last n bytes of s, at a line start when it can.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < n/2 {
		s = s[i+1:]
	}
	return "…" + s
}

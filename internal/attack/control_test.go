//go:build linux

package attack

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// replay runs an attack's calls with no godwit in the way: shell_exec
// with bash in the workspace, file_read and file_write on disk. What
// they print is what a model would have seen. The control must break:
// otherwise the payload is dead and the attack proves nothing.
func replay(t *testing.T, s *scene, a *Attack) evidence {
	t.Helper()
	var ev evidence
	ev.control = true
	env := withDotenv(s.godwitEnv(a), filepath.Join(s.ws, ".env"))
	calls := a.calls()
	if a.UTS {
		// One namespace for the whole replay, as godwit has one.
		var lines []string
		for _, c := range calls {
			line, _ := c.Args["command"].(string)
			lines = append(lines, line)
		}
		calls = []call{{Tool: "shell_exec", Args: map[string]any{"command": strings.Join(lines, "\n")}}}
	}
	for _, c := range calls {
		switch c.Tool {
		case "shell_exec":
			line, _ := c.Args["command"].(string)
			limit := 30 * time.Second
			if sec, ok := c.Args["timeout_s"].(float64); ok {
				limit = time.Duration(sec * float64(time.Second))
			} else if sec, ok := c.Args["timeout_s"].(int); ok {
				limit = time.Duration(sec) * time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			cmd := exec.CommandContext(ctx, "bash", "-c", line)
			if a.UTS {
				cmd = exec.CommandContext(ctx, "unshare", "--uts", "bash", "-c", line)
			}
			cmd.Dir = s.ws
			cmd.Env = env
			cmd.WaitDelay = 2 * time.Second
			out, _ := cmd.CombinedOutput()
			cancel()
			ev.seen = append(ev.seen, string(out))
		case "file_read":
			p, _ := c.Args["path"].(string)
			b, _ := os.ReadFile(resolve(s.ws, p))
			ev.seen = append(ev.seen, string(b))
		case "file_write":
			p, _ := c.Args["path"].(string)
			body, _ := c.Args["content"].(string)
			abs := resolve(s.ws, p)
			_ = os.MkdirAll(filepath.Dir(abs), 0o755)
			_ = os.WriteFile(abs, []byte(body), 0o644)
		default:
			t.Fatalf("no replay for %s: set control: false", c.Tool)
		}
	}
	return ev
}

func resolve(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

// withDotenv adds the KEY=VALUE lines of a workspace .env to env, where
// env does not set them: what godwit did with a repository's .env
// before issue 15, and what a naive agent does.
func withDotenv(env []string, file string) []string {
	b, err := os.ReadFile(file)
	if err != nil {
		return env
	}
	set := map[string]bool{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		set[k] = true
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(k, "#") || set[k] {
			continue
		}
		env = append(env, k+"="+strings.Trim(v, `"'`))
		set[k] = true
	}
	return env
}

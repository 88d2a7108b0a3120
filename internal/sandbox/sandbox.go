package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
)

// Config says what a sandboxed command may do.
type Config struct {
	// Writable are the folders (or files) commands may create, change
	// and delete in: the workspace, the temp folder, folders rules add.
	// Missing ones are skipped. Ignored when ReadOnly.
	Writable []string
	// ReadOnly forbids every write except to /dev/null and the like.
	ReadOnly bool
	// Network allows TCP connections and listening (and pathname unix
	// sockets). False denies them where the kernel can (Landlock ABI 4+).
	Network bool
	// TempDir, when set, is exported to commands as TMPDIR. It should be
	// a private folder listed in Writable.
	TempDir string
	// Caches, when set and not ReadOnly, are the commands' private
	// caches: their folder is writable and their variables are set (see
	// Caches). Only where Landlock applies: without it a command could
	// write the user's caches anyway.
	Caches *Caches
	// View, when set, gives each command (Linux) namespaces of its own
	// that hide secrets from it; one View serves a session's Wraps.
	View *View
	// Limits are the commands' rlimits.
	Limits Limits
	// Logger receives the one warning about missing support; nil
	// discards.
	Logger *slog.Logger
}

// childArg marks the re-executed binary as a sandbox child.
const childArg = "__godwit_sandbox"

// envVar carries the Config to the child.
const envVar = "GODWIT_SANDBOX"

// payload is what the child needs of a Config.
type payload struct {
	Writable []string `json:"writable,omitempty"`
	ReadOnly bool     `json:"read_only,omitempty"`
	Network  bool     `json:"network,omitempty"`
	// View is set when the child runs in namespaces of its own; UserNS
	// when a user namespace is one of them.
	View   *viewPayload `json:"view,omitempty"`
	UserNS bool         `json:"user_ns,omitempty"`
	Limits Limits       `json:"limits"`
}

// ErrUnsupported is reported by Status where no sandbox can be applied.
var ErrUnsupported = errors.New("sandbox: Landlock is not available")

// rewrite turns cmd into `exe __godwit_sandbox PATH ARGV...` carrying p,
// with extra added to its environment (later entries win in os/exec).
func rewrite(cmd *exec.Cmd, exe string, p payload, tmp string, extra []string) error {
	if cmd.Err != nil {
		return cmd.Err
	}
	if cmd.Path == "" || len(cmd.Args) == 0 {
		return errors.New("sandbox: the command has no program")
	}
	if len(cmd.Args) > 1 && cmd.Args[1] == childArg {
		return errors.New("sandbox: the command is already wrapped")
	}
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(env[:len(env):len(env)], envVar+"="+string(b))
	cmd.Env = withTemp(append(env, extra...), tmp)
	cmd.Args = append([]string{exe, childArg, cmd.Path}, cmd.Args...)
	cmd.Path = exe
	return nil
}

// tempOnly is Wrap without a sandbox: it only sets TMPDIR.
func tempOnly(tmp string) func(*exec.Cmd) error {
	return func(cmd *exec.Cmd) error {
		if tmp != "" {
			env := cmd.Env
			if env == nil {
				env = os.Environ()
			}
			cmd.Env = withTemp(env, tmp)
		}
		return nil
	}
}

// withTemp points TMPDIR at tmp (later entries win in os/exec).
func withTemp(env []string, tmp string) []string {
	if tmp == "" {
		return env
	}
	return append(env[:len(env):len(env)], "TMPDIR="+tmp)
}

// childEnv is the environment the real command gets: ours without the
// payload.
func childEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envVar+"=") {
			out = append(out, kv)
		}
	}
	return out
}

func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

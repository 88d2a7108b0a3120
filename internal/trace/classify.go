package trace

import (
	"encoding/json"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/store"
)

// The model-facing tool names the analysis understands. The trace does
// not depend on the tools themselves.
const (
	toolRead  = "file_read"
	toolWrite = "file_write"
	toolEdit  = "file_edit"
	toolShell = "shell_exec"

	// codeDenied is tool.CodeDenied: the call was refused and never ran;
	// codeCancelled is tool.CodeCancelled: the user stopped it.
	codeDenied    = "DENIED"
	codeCancelled = "CANCELLED"
)

// fileRead is a file_read call's target: a path and a line range (0 for
// an open end).
type fileRead struct {
	path     string
	from, to int
}

// overlaps reports whether two reads of one file show a line in common.
func (r fileRead) overlaps(o fileRead) bool {
	lo1, hi1 := bounds(r)
	lo2, hi2 := bounds(o)
	return lo1 <= hi2 && lo2 <= hi1
}

func bounds(r fileRead) (lo, hi int) {
	lo, hi = max(r.from, 1), r.to
	if hi <= 0 {
		hi = 1 << 30
	}
	return lo, hi
}

// readOf returns what a successful file_read call read.
func readOf(c store.ToolCall, workspace string) (fileRead, bool) {
	if c.Name != toolRead || c.IsError {
		return fileRead{}, false
	}
	var a struct {
		Path      string `json:"path"`
		StartLine int    `json:"start_line"`
		EndLine   int    `json:"end_line"`
	}
	if json.Unmarshal(c.Args, &a) != nil || a.Path == "" {
		return fileRead{}, false
	}
	return fileRead{path: relPath(a.Path, workspace), from: a.StartLine, to: a.EndLine}, true
}

// writesOf returns the workspace-relative paths a call wrote: those it
// reported as changed or, for the file tools, the path it was given.
func writesOf(c store.ToolCall, workspace string) []string {
	if len(c.Changed) > 0 {
		out := make([]string, len(c.Changed))
		for i, p := range c.Changed {
			out[i] = relPath(p, workspace)
		}
		return out
	}
	if c.IsError || (c.Name != toolWrite && c.Name != toolEdit) {
		return nil
	}
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(c.Args, &a) != nil || a.Path == "" {
		return nil
	}
	return []string{relPath(a.Path, workspace)}
}

// relPath makes p workspace-relative and clean, so that "./a.go",
// "a.go" and "/ws/a.go" name one file.
func relPath(p, workspace string) string {
	p = filepath.ToSlash(p)
	if ws := filepath.ToSlash(workspace); ws != "" && path.IsAbs(p) {
		if rel, ok := strings.CutPrefix(p, strings.TrimRight(ws, "/")+"/"); ok {
			p = rel
		}
	}
	return path.Clean(p)
}

// commandOf returns the command of a shell_exec run (not of the job
// actions list, status, logs and stop).
func commandOf(c store.ToolCall) (string, bool) {
	if c.Name != toolShell {
		return "", false
	}
	var a struct {
		Action  string `json:"action"`
		Command string `json:"command"`
	}
	if json.Unmarshal(c.Args, &a) != nil || (a.Action != "" && a.Action != "run") {
		return "", false
	}
	cmd := strings.Join(strings.Fields(a.Command), " ")
	return cmd, cmd != ""
}

// testCommand matches a command that runs a test suite, at the start of
// the command or after a separator (&&, ;, |), maybe behind timeout, env,
// time or variable assignments.
var testCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[;&|(]\s*)` +
		`(?:(?:timeout\s+\S+|env|time|nice|xvfb-run)\s+)*` +
		`(?:[A-Z_][A-Z0-9_]*=\S*\s+)*` +
		`(?:go\s+test|gotestsum|(?:python[0-9.]*\s+-m\s+)?pytest|py\.test|python[0-9.]*\s+-m\s+unittest|tox|nox|` +
		`(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test|npx\s+(?:jest|vitest|mocha)|jest|vitest|mocha|bun\s+test|deno\s+test|` +
		`cargo\s+(?:test|nextest)|make\s+(?:test|check)\w*|ctest|rspec|bundle\s+exec\s+rspec|phpunit|` +
		`dotnet\s+test|mvn\s+(?:\S+\s+)*test|(?:\./)?gradlew?\s+(?:\S+\s+)*test|mix\s+test|zig\s+build\s+test|swift\s+test)` +
		`(?:\s|$|[;&|)])`)
})

// isTestCommand reports whether cmd runs tests.
func isTestCommand(cmd string) bool { return testCommand().MatchString(cmd) }

// Shell output merges stdout and stderr (tool/shell reads both from one
// pipe), so a run "with stderr output" is recognised by its text: a line
// that starts the way diagnostics do, or a stack trace.
var diagnosticLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)` +
		`^(?:\S+:\d+(?::\d+)?:\s*)?(?i:warning|warn|error|fatal|panic|exception)(?:\[[^\]\n]*\])?:` + // "warning:", "x.c:3:1: error:"
		`|^(?:WARN|WARNING|ERROR|FATAL)\b` + // log levels
		`|^(?:\S+:\d+:\s*)?\w+(?:Warning|Error):` + // Python's DeprecationWarning:, TypeError:
		`|^Traceback \(most recent call last\):` +
		`|^(?i:npm (?:warn|err!))` +
		`|: command not found$|(?i:: no such file or directory)$`)
})

// diagnosticWords are what every diagnosticLine match contains, lower
// case: a cheap test that spares most outputs the regular expression.
var diagnosticWords = []string{"warn", "error", "fatal", "panic", "exception", "traceback", "err!", "not found", "no such file"}

// diagnosticOutput returns the first line of out that looks like stderr
// output (a warning, an error, a stack trace), or "". The trailer line
// tool/shell adds ("[exit 0 · 0.42s]") is not looked at.
func diagnosticOutput(out string) string {
	if i := strings.LastIndexByte(strings.TrimRight(out, "\n"), '\n'); i >= 0 && strings.HasPrefix(out[i+1:], "[") {
		out = out[:i]
	} else if strings.HasPrefix(out, "[") && !strings.Contains(out, "\n") {
		return ""
	}
	lower := strings.ToLower(out)
	found := false
	for _, w := range diagnosticWords {
		if strings.Contains(lower, w) {
			found = true
			break
		}
	}
	if !found {
		return ""
	}
	loc := diagnosticLine().FindStringIndex(out)
	if loc == nil {
		return ""
	}
	start := strings.LastIndexByte(out[:loc[0]+1], '\n') + 1
	end := strings.IndexByte(out[start:], '\n')
	if end < 0 {
		return out[start:]
	}
	return out[start : start+end]
}

// exitCode returns a call's exit code, or -1 when it ran no command or
// was killed.
func exitCode(c store.ToolCall) int {
	if c.ExitCode == nil {
		return -1
	}
	return *c.ExitCode
}

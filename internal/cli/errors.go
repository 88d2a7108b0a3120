package cli

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/config"
	"github.com/godwit/godwit/internal/wiring"
)

// internalPrefix matches a godwit package's name at the start of an
// error message or of a wrapped part of one. MCP and ACP are left: users
// know them by those names; so are the providers (anthropic, openai),
// which name themselves in messages.
var internalPrefix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|: |\n|\()(?:agent|wiring|config|catalog|store|llm|retry|window|handoff|memory|policy|snapshot|tool|workspace|tui|eval|trace|subagent|sandbox|deferred|shell|fs|untrusted|prompt|plan|recall|demo|fake|cli|mail): `)
})

// cleanText removes godwit's package prefixes from a message.
func cleanText(s string) string {
	re := internalPrefix()
	for {
		t := re.ReplaceAllString(s, "$1")
		if t == s {
			return s
		}
		s = t
	}
}

// userMessage renders err for the terminal.
func userMessage(err error) string {
	var we *agent.WorkspaceError
	if errors.As(err, &we) {
		return workspaceMessage(we)
	}
	return cleanText(err.Error())
}

// userError is err worded for the user (userMessage), for a front end
// that shows an error's text as it is (the editor, over ACP); it unwraps
// to err, so callers branch on its types as before.
type userError struct{ err error }

func (e userError) Error() string { return userMessage(e.err) }
func (e userError) Unwrap() error { return e.err }

// workspaceMessage says why a session of another workspace is not
// continued here, and the one command that continues it where it belongs.
func workspaceMessage(e *agent.WorkspaceError) string {
	return fmt.Sprintf("session %s belongs to %s, not to this workspace (%s); godwit continues a session only where it was started, so that its files, undo and trace agree. Continue it there:\n  godwit -C %s run --session %s -p ...\nor start a new session here without --session.",
		e.SessionID, e.SessionWorkspace, e.Workspace, shellQuote(e.SessionWorkspace), e.SessionID)
}

// exitCode maps an error to the process's exit status.
func exitCode(err error) int {
	var (
		ue *UsageError
		ce *config.Error
		ie *wiring.InputError
		we *agent.WorkspaceError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errSilent):
		return ExitFailed
	case errors.As(err, &ue), errors.As(err, &ce), errors.As(err, &ie), errors.As(err, &we), isCobraUsage(err):
		return ExitUsage
	}
	return ExitFailed
}

// shellQuote quotes a path for a command line when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

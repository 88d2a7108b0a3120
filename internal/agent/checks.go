package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm"
)

// Verifier runs the --verify command in the workspace. It is given by the
// caller (wiring runs it like shell_exec, under the same process-group and
// sandbox rules), so the agent never starts processes itself.
type Verifier func(ctx context.Context, command string, timeout time.Duration) VerifyOutcome

// VerifyOutcome is what one verify run showed.
type VerifyOutcome struct {
	ExitCode int
	Output   string
	Duration time.Duration
	Err      error // the command could not run at all
}

// End-of-turn checks. Each fires at most once a turn.
const (
	CheckUnverifiedWrite = "unverified_write"
	CheckOpenPlan        = "open_plan"
	CheckAnnouncedStep   = "announced_step"
	CheckLoop            = "loop"
)

// verifyTail is how much of a failing verify's output goes back to the
// model.
const verifyTail = 4 << 10

// DefaultVerifyRounds is how many times a failing verify sends the model
// back.
const DefaultVerifyRounds = 2

// DefaultVerifyTimeout bounds one verify run.
const DefaultVerifyTimeout = 10 * time.Minute

var announce = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|[.!:\n]\s*)(next,? i('ll| will)|now i('ll| will)|let me|i('m| am) going to|i will now|i'll now|i'll (run|check|test|fix|update|add))\b[^.!?\n]*[.:!]?\s*$`)
})

// endOfTurnCheck returns the message to send the model back with, or "",
// for the first check that fires and has not fired this turn.
func (s *session) endOfTurnCheck(answer string, turnStart int, fired map[string]bool) (check, msg string) {
	turn := s.history[turnStart:]
	// Only calls that succeeded count: a denied write changed nothing.
	failed := map[string]bool{}
	for _, m := range turn {
		for _, p := range m.Parts {
			if p.ToolResult != nil && p.ToolResult.IsError {
				failed[p.ToolResult.CallID] = true
			}
		}
	}
	lastWrite, lastCmd := -1, -1
	var sigs []string
	for i, m := range turn {
		for _, c := range m.ToolCalls() {
			sigs = append(sigs, signature(c))
			if failed[c.ID] {
				continue
			}
			switch c.Name {
			case "file_write", "file_edit":
				if checkable(c.Args) {
					lastWrite = i
				}
			case "shell_exec":
				lastCmd = i
			}
		}
	}
	var open []string
	if s.r.cfg.OpenPlan != nil {
		open = s.r.cfg.OpenPlan()
	}
	candidates := []struct {
		name string
		hit  bool
		msg  string
	}{
		{CheckUnverifiedWrite, lastWrite >= 0 && lastCmd < lastWrite,
			"You changed files but ran no command to check them since. Run the build or the tests now, or say plainly why you cannot."},
		{CheckOpenPlan, len(open) > 0,
			"Your plan still has open steps: " + strings.Join(firstSteps(open), "; ") + ". Finish them, or update the plan to say why they are dropped."},
		{CheckAnnouncedStep, announce().MatchString(strings.TrimSpace(answer)),
			"You announced a next step but stopped. Do it now, or say that you are done."},
		{CheckLoop, repeatedIn(sigs, 8, 3),
			"You made the same call three times in your last eight steps. Step back and change approach."},
	}
	for _, c := range candidates {
		if c.hit && !fired[c.name] {
			fired[c.name] = true
			return c.name, "[godwit check] " + c.msg
		}
	}
	return "", ""
}

// checkable reports whether a command could check the file a write call
// named: anything but prose (Markdown, plain text and the like, README and
// LICENSE) outside testdata, which no build or test reads. A call whose
// path cannot be read counts.
func checkable(args json.RawMessage) bool {
	var a struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(args, &a) // as the write tools read it
	orig := a.Path
	if orig == "" {
		return true
	}
	p := strings.ToLower(filepath.ToSlash(orig))
	if strings.Contains("/"+p, "/testdata/") {
		return true
	}
	base := path.Base(p)
	switch path.Ext(base) {
	case ".md", ".markdown", ".txt", ".text", ".rst", ".adoc", ".asciidoc", ".org":
		return false
	case "":
		orig = path.Base(filepath.ToSlash(orig))
		return orig != strings.ToUpper(orig) // README, LICENSE, NOTICE: prose
	}
	return true
}

func firstSteps(steps []string) []string {
	if len(steps) > 5 {
		steps = append(steps[:5], "…")
	}
	return steps
}

// repeatedIn reports whether any signature occurs at least n times among
// the last window ones.
func repeatedIn(sigs []string, window, n int) bool {
	if len(sigs) > window {
		sigs = sigs[len(sigs)-window:]
	}
	count := map[string]int{}
	for _, s := range sigs {
		count[s]++
		if count[s] >= n {
			return true
		}
	}
	return false
}

// verify runs the verify command and records it. It returns the message
// to send the model back with when the command failed.
func (s *session) verify(ctx context.Context, in RunInput, round int) (bool, string) {
	timeout := in.VerifyTimeout
	if timeout <= 0 {
		timeout = DefaultVerifyTimeout
	}
	out := s.r.cfg.Verify(ctx, in.Verify, timeout)
	info := &VerifyInfo{Round: round, Command: in.Verify, ExitCode: out.ExitCode, DurationMS: out.Duration.Milliseconds()}
	if out.Err != nil {
		info.Error = out.Err.Error()
		if out.ExitCode == 0 {
			out.ExitCode, info.ExitCode = -1, -1
		}
	}
	tail := out.Output
	if len(tail) > verifyTail {
		tail = "[…]\n" + tail[len(tail)-verifyTail:]
	}
	rec := store.VerifyRun{SessionID: s.id, TurnID: s.turnID, Round: round, Command: in.Verify, ExitCode: out.ExitCode,
		StartedAt: s.r.cfg.Now().Add(-out.Duration), Duration: out.Duration, OutputTail: tail}
	if _, err := s.r.cfg.Store.RecordVerifyRun(context.WithoutCancel(ctx), rec); err != nil {
		s.r.cfg.Logger.Error("agent: recording verify run", "err", err)
	}
	s.emit(Event{Type: EventVerify, Verify: info})
	if out.ExitCode == 0 {
		return true, ""
	}
	why := fmt.Sprintf("exited %d", out.ExitCode)
	if out.Err != nil {
		why = "could not run: " + out.Err.Error()
	}
	return false, fmt.Sprintf("[godwit verify #%d] `%s` %s. The task is not done. Output (tail):\n%s\nFix the cause, then answer again.", round, in.Verify, why, tail)
}

// nudge sends the model back to work with msg, as a user message of the
// same turn.
func (s *session) nudge(ctx context.Context, check, msg string) error {
	s.emit(Event{Type: EventNudge, Nudge: &NudgeInfo{Check: check, Message: msg}})
	return s.append(ctx, llm.UserText(msg))
}

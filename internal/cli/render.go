package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/tool"
)

// jsonSink writes one JSON object per line (docs/json-events.md): every
// event but the deltas, whose text the model.response event carries
// whole.
type jsonSink struct {
	mu      sync.Mutex
	enc     *json.Encoder
	session string // the session's id, once session.started has said it
	errored bool   // an error event was written
}

// outputSink is how a one-shot command shows its events: JSON lines with
// --json, else only the answer on stdout and everything else on stderr.
func outputSink(ios *IOStreams, asJSON bool) agent.Sink {
	if asJSON {
		return newJSONSink(ios.Out)
	}
	// stderr is always for a person; stdout only on a terminal.
	return newAnswerSink(shown(ios.Out, ios.OutTTY), safeWriter{ios.ErrOut})
}

func newJSONSink(w io.Writer) *jsonSink { return &jsonSink{enc: json.NewEncoder(w)} }

func (s *jsonSink) Emit(e agent.Event) {
	if e.Type == agent.EventTextDelta || e.Type == agent.EventThinkingDelta {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e.Type {
	case agent.EventSessionStarted:
		s.session = e.SessionID
	case agent.EventError:
		s.errored = true
		e.Text = cleanText(e.Text)
	case agent.EventTurnFinished:
		if e.Finished != nil && e.Finished.Error != "" {
			f := *e.Finished
			f.Error = cleanText(f.Error)
			e.Finished = &f
		}
	case agent.EventModelResponse:
		if e.Response != nil && e.Response.Error != "" {
			r := *e.Response
			r.Error = cleanText(r.Error)
			e.Response = &r
		}
	}
	if e.SessionID == "" {
		e.SessionID = s.session // mcp.status comes from outside the turn loop
	}
	_ = s.enc.Encode(e)
}

// fail writes an error event for a failure the turn loop did not report
// itself (a missing key, a bad model, a session that cannot be continued),
// so that a consumer of the stream always learns why it ended.
func (s *jsonSink) fail(err error, now time.Time) {
	s.mu.Lock()
	done := s.errored
	s.mu.Unlock()
	if !done {
		s.Emit(agent.Event{Type: agent.EventError, Time: now, Text: userMessage(err)})
	}
}

// plainSink shows a session's events as text: a line per tool call,
// retry and approval on log (stderr), and the model's text on out as it
// comes. `run` (answerOnly) keeps out for the answer alone, as `claude
// -p` does: the model's words between tool calls go to log once each
// response is whole, the turn's answer to out at its end.
type plainSink struct {
	mu         sync.Mutex
	out        io.Writer
	log        io.Writer
	answerOnly bool
	shown      map[string]progressMark // per call: what its last progress line said
	midLine    bool                    // out has text without a trailing newline
	// answerOnly: the text of the response streaming now, and of the last
	// response without tool calls (the answer, unless the turn goes on).
	pending, held string
}

func newPlainSink(out, log io.Writer) *plainSink { return &plainSink{out: out, log: log} }

// newAnswerSink is `run`'s: only the answer on out.
func newAnswerSink(out, log io.Writer) *plainSink {
	return &plainSink{out: out, log: log, answerOnly: true}
}

func (s *plainSink) Emit(e agent.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.answerOnly && s.answer(e) {
		return
	}
	switch e.Type {
	case agent.EventTextDelta:
		if e.Text == "" {
			return
		}
		fmt.Fprint(s.out, e.Text)
		s.midLine = !strings.HasSuffix(e.Text, "\n")
	case agent.EventModelResponse:
		s.endLine()
	case agent.EventToolProgress:
		if s.progressed(e) {
			s.endLine()
			fmt.Fprintf(s.log, "  … %s %s\n", e.Tool.Name, progressLine(e.Progress))
		}
	case agent.EventToolStarted:
		s.endLine()
		fmt.Fprintf(s.log, "→ %s\n", toolLine(e.Tool))
	case agent.EventToolFinished:
		t := e.Tool
		d := time.Duration(t.DurationMS) * time.Millisecond
		switch {
		case t.IsError:
			fmt.Fprintf(s.log, "  ✗ %s %s\n", t.Name, firstLine(t.Output, 160))
		case t.ExitCode != nil && *t.ExitCode != 0:
			fmt.Fprintf(s.log, "  ✗ %s exit %d (%s)\n", t.Name, *t.ExitCode, d.Round(time.Millisecond))
		case t.ExitCode != nil:
			fmt.Fprintf(s.log, "  ✓ %s exit 0 (%s)\n", t.Name, d.Round(time.Millisecond))
		default:
			fmt.Fprintf(s.log, "  ✓ %s (%s)\n", t.Name, d.Round(time.Millisecond))
		}
	case agent.EventMCPStatus:
		// The log line of the server's state change says it already.
	case agent.EventTurnFinished:
		s.endLine()
	default:
		if line := noticeLine(e); line != "" {
			s.endLine()
			if e.Type == agent.EventModelRetry && e.Retry.Discarded && !s.answerOnly {
				line += "; the partial answer above is discarded"
			}
			fmt.Fprintln(s.log, line)
		}
	}
}

// noticeLine is an event that is neither the model's text nor a tool
// call as run's stderr and the inspect timeline show it; "" for others.
func noticeLine(e agent.Event) string {
	switch {
	case e.Type == agent.EventApproval && e.Approval != nil && !e.Approval.Allow:
		return fmt.Sprintf("  ⊘ denied %s: %s", e.Approval.Summary, e.Approval.Reason)
	case e.Type == agent.EventModelRetry && e.Retry != nil:
		r := e.Retry
		return fmt.Sprintf("↻ %s; retry %d in %s", r.Reason, r.Attempt, r.Wait.Round(time.Millisecond))
	case e.Type == agent.EventModelFallback && e.Fallback != nil:
		return fmt.Sprintf("⇢ switching from %s to %s: %s", e.Fallback.From, e.Fallback.To, e.Fallback.Reason)
	case e.Type == agent.EventVerify && e.Verify != nil:
		v := e.Verify
		s := fmt.Sprintf("verify #%d: %s -> exit %d (%d ms)", v.Round, v.Command, v.ExitCode, v.DurationMS)
		if v.Error != "" {
			s += ": " + v.Error
		}
		return s
	case e.Type == agent.EventNudge && e.Nudge != nil:
		return "↩ check: " + e.Nudge.Check
	case e.Type == agent.EventSegmentReset && e.Reset != nil:
		r := e.Reset
		shrunk := ""
		if r.Shrunk > 0 {
			shrunk = fmt.Sprintf("; %d ledger entries shortened to fit", r.Shrunk)
		}
		return fmt.Sprintf("⟲ context reset (%s): segment %d, handoff %d tokens%s", r.Reason, r.To, r.Tokens, shrunk)
	case e.Type == agent.EventKept && e.Kept != nil:
		return fmt.Sprintf("godwit: kept as a rule, D%d", e.Kept.Seq)
	case e.Type == agent.EventSuperseded && e.Superseded != nil:
		return supersededLine(e.Superseded)
	case e.Type == agent.EventLedgerOver, e.Type == agent.EventNotice:
		return "godwit: " + e.Text
	}
	return ""
}

// answer handles the model's text in answerOnly mode; true when e needs
// nothing more.
func (s *plainSink) answer(e agent.Event) bool {
	narrate := func(text string) {
		if text = strings.TrimSpace(text); text != "" {
			fmt.Fprintln(s.log, text)
		}
	}
	switch e.Type {
	case agent.EventTextDelta:
		s.pending += e.Text
		return true
	case agent.EventModelRetry, agent.EventModelFallback:
		s.pending = "" // that attempt's text is void
	case agent.EventNudge:
		// The model is sent back: what it said was not the end.
		narrate(s.held)
		s.held = ""
	case agent.EventModelRequest:
		// The turn goes on: the last answer was not the last.
		narrate(s.held)
		s.held = ""
	case agent.EventModelResponse:
		if r := e.Response; r != nil && r.Purpose == "" {
			if r.ToolCalls > 0 {
				narrate(s.pending)
			} else {
				s.held = s.pending
			}
		}
		s.pending = ""
		return true
	case agent.EventTurnFinished:
		var text string
		if e.Finished != nil {
			text = strings.TrimRight(e.Finished.Text, "\n")
		}
		if strings.TrimSpace(s.held) != strings.TrimSpace(text) {
			narrate(s.held) // a reply to a check that did not replace the answer
		}
		s.held = ""
		if text != "" {
			fmt.Fprintln(s.out, text)
		}
		return true
	}
	return false
}

// supersededLine tells the user a ledger entry no longer holds.
func supersededLine(i *agent.SupersededInfo) string {
	return fmt.Sprintf("⚑ D%d no longer holds: your D%d replaced it (%s saw the change).\n  was: %s\n  now: %s",
		i.Old, i.By, map[string]string{"godwit": "godwit", "model": "the model pointed at it; godwit checked"}[i.ProposedBy],
		oneLine(i.OldText, 100), oneLine(i.ByText, 100))
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

func (s *plainSink) endLine() {
	if s.midLine {
		fmt.Fprintln(s.out)
		s.midLine = false
	}
}

func toolLine(t *agent.ToolInfo) string {
	if t.Summary != "" {
		return t.Summary
	}
	return t.Name + " " + firstLine(t.Args, 120)
}

func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

// progressMark is the last progress line of a call.
type progressMark struct {
	tenth int
	msg   string
}

// progressed reports whether a progress event says something new enough
// to print: a new message, or another tenth of the total done. A server
// may send hundreds; stderr gets a line per step worth reading.
func (s *plainSink) progressed(e agent.Event) bool {
	if e.Tool == nil || e.Progress == nil || e.Progress.Output != "" {
		return false // a command's live lines: its output shows once it ends
	}
	p := e.Progress
	mark := progressMark{tenth: -1, msg: p.Message}
	if p.Total > 0 {
		mark.tenth = int(10 * p.Progress / p.Total)
	}
	if s.shown == nil {
		s.shown = map[string]progressMark{}
	}
	last, ok := s.shown[e.Tool.CallID]
	if ok && last == mark && (p.Total > 0 || p.Message != "") {
		return false
	}
	s.shown[e.Tool.CallID] = mark
	return true
}

func progressLine(p *tool.Progress) string {
	var out string
	switch {
	case p.Total > 0:
		out = fmt.Sprintf("%.0f/%.0f", p.Progress, p.Total)
	default:
		out = fmt.Sprintf("%g", p.Progress)
	}
	if p.Message != "" {
		out += " " + p.Message
	}
	return out
}

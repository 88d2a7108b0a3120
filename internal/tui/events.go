package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/policy"
)

// feed turns agent events into transcript items.
type feed struct {
	t     *transcript
	tools map[string]*entry // tool items by call id

	text, fold *entry // the answer and the thinking (or handoff) being streamed
	purpose    string // of the request in flight: "" or "handoff"
	turnStart  time.Time
	turnErr    string
	callErr    string // the last failed model call's, shown on its ✗ line
}

func newFeed(t *transcript) *feed {
	return &feed{t: t, tools: map[string]*entry{}}
}

// discard ends the answer being streamed, marked discarded if the
// model call is retried without it.
func (f *feed) discard(discarded bool) {
	if discarded && f.text != nil {
		f.text.it.(*assistantItem).discarded = true
		f.text.touch()
	}
	f.close()
}

// apply adds e to the transcript. live is false when redrawing a stored
// session: its events carry no deltas, and its prompts were not typed in
// this chat.
func (f *feed) apply(e agent.Event, live bool) {
	th := f.t.rc.th
	switch e.Type {
	case agent.EventTurnStarted:
		f.turnStart, f.turnErr, f.callErr = e.Time, "", ""
		if !live && e.Prompt != "" {
			f.t.add(&userItem{text: e.Prompt})
		}
	case agent.EventModelRequest:
		f.close()
		if e.Request != nil {
			f.purpose = e.Request.Purpose
		}
	case agent.EventThinkingDelta:
		f.foldDelta("thinking", e.Text)
	case agent.EventTextDelta:
		if f.purpose == "handoff" {
			f.foldDelta("handoff", e.Text)
			return
		}
		if f.text == nil {
			f.closeFold()
			f.text = f.t.add(&assistantItem{})
		}
		a := f.text.it.(*assistantItem)
		a.text = append(a.text, e.Text...)
		f.text.touch()
	case agent.EventModelResponse:
		r := e.Response
		if !live && r != nil && r.Purpose == "" && r.Thinking != "" {
			// Folded, as the live chat showed it while it streamed.
			fi := &foldItem{label: "thinking", done: true}
			fi.text.WriteString(r.Thinking)
			f.t.add(fi)
		}
		if !live && r != nil && r.Text != "" {
			if r.Purpose != "" { // a handoff or a summary, not an answer
				fi := &foldItem{label: r.Purpose, done: true}
				fi.text.WriteString(r.Text)
				f.t.add(fi)
			} else {
				f.t.add(&assistantItem{text: []byte(r.Text), done: true})
			}
		}
		// A cancelled call is no failure: the turn's end line says it.
		if r != nil && r.Error != "" && !strings.Contains(r.Error, agent.ErrCancelled.Error()) {
			f.t.add(&noticeItem{text: "✗ the model call failed: " + r.Error, style: th.Error})
			f.callErr = r.Error
		}
		f.close()
	case agent.EventModelRetry:
		if r := e.Retry; r != nil {
			f.discard(r.Discarded)
			f.t.add(&noticeItem{text: fmt.Sprintf("↻ %s; retry %d in %s", r.Reason, r.Attempt, duration(r.Wait)), style: th.Warn})
		}
	case agent.EventModelFallback:
		if fb := e.Fallback; fb != nil {
			f.discard(fb.Discarded)
			f.t.add(&noticeItem{text: fmt.Sprintf("⇢ switching from %s to %s: %s", fb.From, fb.To, fb.Reason), style: th.Warn})
		}
	case agent.EventApproval:
		if a := e.Approval; a != nil {
			if !live {
				f.answered(a)
			}
			en := f.tool(a.CallID, a.Tool)
			ti := en.it.(*toolItem)
			if ti.summary == "" {
				ti.summary = a.Summary
			}
			en.touch()
		}
	case agent.EventToolStarted:
		if e.Tool != nil {
			en := f.tool(e.Tool.CallID, e.Tool.Name)
			en.it.(*toolItem).started(e.Tool)
			en.touch()
		}
	case agent.EventToolProgress:
		if e.Tool != nil && e.Progress != nil {
			en := f.tool(e.Tool.CallID, e.Tool.Name)
			p := e.Progress
			en.it.(*toolItem).setProgress(p.Progress, p.Total, p.Message, p.Output)
			en.touch()
		}
	case agent.EventToolFinished:
		if e.Tool != nil {
			en := f.tool(e.Tool.CallID, e.Tool.Name)
			ti := en.it.(*toolItem)
			ti.finished(e.Tool)
			if ti.isPlan && len(f.t.entries) > 1 {
				en.gap = true // a card, not a line in a run of calls
			}
			en.touch()
		}
	case agent.EventSegmentReset:
		if r := e.Reset; r != nil {
			by := ""
			if !r.ByModel {
				by = "; godwit wrote it from the history"
			}
			if r.Shrunk > 0 {
				by += fmt.Sprintf("; %d ledger entries shortened to fit", r.Shrunk)
			}
			f.t.add(&noticeItem{text: fmt.Sprintf("⟲ context reset (%s): segment %d → %d; handoff %s tokens, %s of them decisions%s",
				r.Reason, r.From, r.To, thousands(r.Tokens), thousands(r.DecisionsTokens), by), style: th.Accent})
		}
	case agent.EventKept:
		f.t.add(&noticeItem{text: keptText(e), style: th.Dim})
	case agent.EventSuperseded:
		if i := e.Superseded; i != nil {
			f.t.add(&noticeItem{text: fmt.Sprintf("⚑ D%d no longer holds: your D%d replaced it. was: %s", i.Old, i.By, cutText(strings.Join(strings.Fields(i.OldText), " "), 100)), style: th.Accent})
		}
	case agent.EventLedgerOver:
		f.t.add(&noticeItem{text: "⚠ " + e.Text, style: th.Accent})
	case agent.EventNotice:
		f.t.add(&noticeItem{text: "⚠ " + e.Text, style: th.Warn})
	case agent.EventCompacted:
		if c := e.Compacted; c != nil {
			pages := ""
			if len(c.Pages) > 0 {
				pages = " (recall " + strings.Join(c.Pages, ", ") + ")"
			}
			f.t.add(&noticeItem{text: fmt.Sprintf("⇣ compacted: %d items paged out, %s tokens freed%s", c.Items, thousands(c.Freed), pages), style: th.Dim})
		}
	case agent.EventVerify:
		if v := e.Verify; v != nil {
			style, icon := th.OK, "✓"
			if v.ExitCode != 0 || v.Error != "" {
				style, icon = th.Error, "✗"
			}
			text := fmt.Sprintf("%s verify #%d: %s → exit %d (%s)", icon, v.Round, v.Command, v.ExitCode, duration(time.Duration(v.DurationMS)*time.Millisecond))
			if v.Error != "" {
				text += ": " + v.Error
			}
			f.t.add(&noticeItem{text: text, style: style})
		}
	case agent.EventNudge:
		if n := e.Nudge; n != nil {
			f.t.add(&noticeItem{text: fmt.Sprintf("↩ check %s: %s", n.Check, oneLine(n.Message, 200)), style: th.Warn})
		}
	case agent.EventMailDelivered, agent.EventMailAnswered, agent.EventMailFailed:
		f.mailEvent(e)
	case agent.EventError:
		f.turnErr = e.Text
	case agent.EventTurnFinished:
		f.close()
		ti := &turnItem{status: "done"}
		if fi := e.Finished; fi != nil {
			ti.status, ti.steps, ti.cost = fi.Status, fi.Steps, fi.Cost
			ti.in, ti.out = fi.Usage.InputTokens, fi.Usage.OutputTokens
			ti.err = fi.Error
		}
		if ti.err == "" {
			ti.err = f.turnErr
		}
		if ti.status == "cancelled" || ti.err == f.callErr {
			ti.err = "" // the status, or the ✗ line above, says it
		}
		if !f.turnStart.IsZero() && !e.Time.IsZero() {
			ti.took = e.Time.Sub(f.turnStart)
		}
		f.t.add(ti)
		f.turnErr, f.callErr, f.turnStart = "", "", time.Time{}
	}
}

// Reasons the policy gives for the user's answers (policy.Policy.ask):
// a replayed approval shows the line the live question left.
const (
	reasonRefused = "the user said no"
	reasonAlways  = "approved by the user for the session: "
)

// answered redraws the line an answered question left in the live chat:
// only questions the user answered are shown, as live; what a rule
// decided shows on the tool's own line.
func (f *feed) answered(a *agent.ApprovalInfo) {
	it := &approvalItem{q: policy.Question{Tool: a.Tool, Summary: a.Summary}, answered: true}
	switch {
	case a.Allow && a.Manual && strings.HasPrefix(a.Reason, reasonAlways):
		it.answer = policy.Always
		it.q.Always = strings.Split(strings.TrimPrefix(a.Reason, reasonAlways), "; ")
	case a.Allow && a.Manual:
		it.answer = policy.Yes
	case !a.Allow && strings.HasPrefix(a.Reason, reasonRefused):
		it.answer = policy.No
	default:
		return
	}
	f.close()
	f.t.add(it)
}

// foldDelta appends to the open folded item of that label.
func (f *feed) foldDelta(label, text string) {
	if f.fold == nil || f.fold.it.(*foldItem).label != label {
		f.closeFold()
		f.fold = f.t.add(&foldItem{label: label})
	}
	f.fold.it.(*foldItem).text.WriteString(text)
	f.fold.touch()
}

// close ends the items being streamed.
func (f *feed) close() {
	if f.text != nil {
		f.text.it.(*assistantItem).done = true
		f.text.touch()
		f.text = nil
	}
	f.closeFold()
}

func (f *feed) closeFold() {
	if f.fold != nil {
		f.fold.it.(*foldItem).done = true
		f.fold.touch()
		f.fold = nil
	}
}

// tool returns the tool item of a call, adding it at the first event
// that names the call.
func (f *feed) tool(id, name string) *entry {
	if en, ok := f.tools[id]; ok {
		return en
	}
	f.close()
	en := f.t.add(&toolItem{callID: id, name: name})
	f.tools[id] = en
	return en
}

func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
}

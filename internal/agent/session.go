package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
)

// session is the in-memory state of one session during a turn.
type session struct {
	r *Runtime
	// sink is the run's (RunInput.Sink).
	sink    *runSink
	id      string
	segment int
	history []llm.Message // current segment, oldest first
	turnID  int64
	turnSeq int
	// prompt is the turn's request, for the engine's handoff.
	prompt string
	// resets counts resets since the model last completed a step: a
	// second one means the work cannot fit.
	resets int
	// turnResets counts the turn's resets for lack of room.
	turnResets int
	// mail is the turn's mail as the model reads it (agent/mail.go).
	mail []llm.Part
	// lastMsg is the store's id of the newest message of history.
	lastMsg int64
	// elided are the tool results loaded without their text (shown
	// paged), call id to output id; hydrate loads them for the handoff.
	elided map[string]int64
}

// maxKept bounds the sessions a Runtime keeps between turns.
const maxKept = 8

// keep remembers s after a turn, so the session's next turn in this
// process need not decode the whole segment again.
func (r *Runtime) keep(s *session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.kept == nil {
		r.kept = map[string]*session{}
	}
	r.keptOrder = append(slices.DeleteFunc(r.keptOrder, func(id string) bool { return id == s.id }), s.id)
	r.kept[s.id] = s
	for len(r.keptOrder) > maxKept {
		delete(r.kept, r.keptOrder[0])
		r.keptOrder = r.keptOrder[1:]
	}
}

// take returns and forgets what was kept of a session, nil for none.
func (r *Runtime) take(id string) *session {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.kept[id]
	delete(r.kept, id)
	return k
}

// open loads a stored session, or creates one when id is empty.
func (r *Runtime) open(ctx context.Context, id string, sink *runSink) (*session, error) {
	st := r.cfg.Store
	if id == "" {
		now := r.cfg.Now()
		sess := store.Session{
			ID:        store.NewID(),
			Workspace: r.cfg.Workspace,
			Model:     r.cfg.ProviderName + "/" + r.cfg.Model,
			CreatedAt: now,
			UpdatedAt: now,
		}
		if err := st.CreateSession(ctx, sess); err != nil {
			return nil, fmt.Errorf("agent: %w", err)
		}
		if err := st.StartSegment(ctx, sess.ID, 1, "start"); err != nil {
			return nil, fmt.Errorf("agent: %w", err)
		}
		s := &session{r: r, sink: sink, id: sess.ID, segment: 1}
		s.emit(Event{Type: EventSessionStarted, Session: r.about(r.cfg.Workspace, sess.Model, false, 1)})
		return s, nil
	}

	sess, err := st.Session(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("agent: no session %q: list them with `godwit sessions`", id)
	}
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if r.cfg.Workspace != "" && sess.Workspace != "" && sess.Workspace != r.cfg.Workspace {
		return nil, &WorkspaceError{SessionID: sess.ID, SessionWorkspace: sess.Workspace, Workspace: r.cfg.Workspace}
	}
	if _, err := st.MarkInterrupted(ctx, sess.ID); err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	s := &session{r: r, sink: sink, id: sess.ID, segment: 1}
	segs, err := st.Segments(ctx, sess.ID)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if n := len(segs); n > 0 {
		s.segment = segs[n-1].Seq
	}
	if err := s.load(ctx, r.take(sess.ID)); err != nil {
		return nil, err
	}
	s.emit(Event{Type: EventSessionStarted, Session: r.about(sess.Workspace, r.cfg.ProviderName+"/"+r.cfg.Model, true, s.segment)})
	if n := s.lostPrompt(ctx); n != "" {
		s.emit(Event{Type: EventNotice, Text: n})
	}
	return s, nil
}

// lostPrompt says, on resume, that the last turn ended before its prompt
// reached the conversation (killed during a handoff, a full disk). It is
// not sent behind the user's back: the user is shown it and told to send
// it again. "" when nothing was lost.
func (s *session) lostPrompt(ctx context.Context) string {
	st := s.r.cfg.Store
	turns, err := st.Turns(ctx, s.id)
	if err != nil || len(turns) == 0 {
		return ""
	}
	t := turns[len(turns)-1]
	if t.Status == store.TurnDone || strings.TrimSpace(t.Prompt) == "" {
		return ""
	}
	if ok, err := st.TurnReachedHistory(ctx, t.ID); err != nil || ok {
		return ""
	}
	prompt := t.Prompt
	if r := []rune(prompt); len(r) > 200 {
		prompt = string(r[:200]) + "…"
	}
	return fmt.Sprintf("turn %d ended (%s) before your message reached the model, so it is not in the conversation; send it again to have it answered:\n%s", t.Seq, t.Status, prompt)
}

// load reads the segment's history: what this process kept when no other
// process has added to the segment since, else the store's, without the
// outputs the segment shows paged.
func (s *session) load(ctx context.Context, k *session) error {
	st := s.r.cfg.Store
	last, err := st.LastMessageID(ctx, s.id, s.segment)
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	if k != nil && k.segment == s.segment && k.lastMsg == last {
		s.history, s.lastMsg, s.elided = k.history, k.lastMsg, k.elided
		return nil
	}
	shown, err := st.PagedCalls(ctx, s.id, s.segment)
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	stored, err := st.MessagesEliding(ctx, s.id, s.segment, func(id string) bool { return shown[id] })
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	s.history = make([]llm.Message, 0, len(stored)+8)
	for _, m := range stored {
		s.history = append(s.history, m.Message)
		for _, part := range m.Elided {
			if s.elided == nil {
				s.elided = map[string]int64{}
			}
			s.elided[m.Message.Parts[part].ToolResult.CallID] = m.OutputOf(part)
		}
		s.lastMsg = m.ID
	}
	return nil
}

// hydrate loads the texts load left in the store, for what reads every
// output of the segment (the handoff).
func (s *session) hydrate(ctx context.Context) error {
	if len(s.elided) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(s.elided))
	for _, id := range s.elided {
		ids = append(ids, id)
	}
	texts, err := s.r.cfg.Store.Outputs(ctx, ids)
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	for i, m := range s.history {
		for j, p := range m.Parts {
			if p.ToolResult == nil {
				continue
			}
			id, ok := s.elided[p.ToolResult.CallID]
			if !ok || p.ToolResult.Content != "" {
				continue
			}
			parts := append([]llm.Part(nil), s.history[i].Parts...)
			r := *p.ToolResult
			r.Content = texts[id]
			parts[j].ToolResult = &r
			s.history[i].Parts = parts
		}
	}
	s.elided = nil
	return nil
}

// about is session.started's payload.
func (r *Runtime) about(workspace, model string, resumed bool, segment int) *SessionInfo {
	var info SessionInfo
	if r.cfg.About != nil {
		info = r.cfg.About()
	}
	info.Workspace, info.Model, info.Resumed, info.Segment = workspace, model, resumed, segment
	return &info
}

// WorkspaceError refuses to continue a session recorded in another
// workspace: its history, undo and trace name files there.
type WorkspaceError struct {
	SessionID string
	// SessionWorkspace is where the session works; Workspace is this
	// runtime's.
	SessionWorkspace, Workspace string
}

func (e *WorkspaceError) Error() string {
	return fmt.Sprintf("agent: session %s works in %s, not in %s; continue it there", e.SessionID, e.SessionWorkspace, e.Workspace)
}

// repair answers calls left without a result (a crash or a cancel
// mid-turn) so that the history is valid for every vendor, and persists
// what it added.
func (s *session) repair(ctx context.Context) error {
	fixed, added := window.Repair(s.history)
	s.history = fixed
	if len(added) > 0 {
		s.explainKilled(ctx, fixed, added)
	}
	for _, m := range added {
		id, err := s.r.cfg.Store.AppendMessage(ctx, s.id, s.turnID, s.segment, m)
		if err != nil {
			return fmt.Errorf("agent: %w", err)
		}
		s.lastMsg = id
	}
	return nil
}

func (s *session) append(ctx context.Context, m llm.Message) error {
	s.history = append(s.history, m)
	// Records outlive a cancelled turn: the history must stay whole.
	id, err := s.r.cfg.Store.AppendMessage(context.WithoutCancel(ctx), s.id, s.turnID, s.segment, m)
	if err != nil {
		s.history = s.history[:len(s.history)-1]
		return fmt.Errorf("agent: recording message: %w", err)
	}
	s.lastMsg = id
	return nil
}

// emit stamps and forwards an event, and records it in the store's
// timeline (deltas excepted: the response that follows carries their sum).
func (s *session) emit(e Event) { s.emitOutput(e, "") }

// emitOutput is emit for an event whose Tool.Output previews output: the
// stored event refers to the stored output instead of a second copy.
func (s *session) emitOutput(e Event, output string) {
	e.SessionID = s.id
	e.Turn = s.turnSeq
	if e.Time.IsZero() {
		e.Time = s.r.cfg.Now()
	}
	s.sink.Emit(e)
	if e.Type == EventTextDelta || e.Type == EventThinkingDelta || e.Type == EventToolProgress {
		return // many, and the events around them say the rest
	}
	rec := store.Event{SessionID: s.id, TurnID: s.turnID, Type: e.Type, Time: e.Time}
	if e.Tool != nil && e.Tool.Output != "" && output != "" {
		t := *e.Tool
		t.Output = store.OutputPlaceholder
		e.Tool = &t
		rec.Output, rec.OutputMax = output, outputPreview
	}
	data, err := json.Marshal(e)
	if err != nil {
		s.r.cfg.Logger.Error("agent: encoding event", "type", e.Type, "err", err)
		return
	}
	rec.Data = data
	if _, err := s.r.cfg.Store.AppendEvent(context.Background(), rec); err != nil {
		s.r.cfg.Logger.Error("agent: recording event", "type", e.Type, "err", err)
	}
}

func title(prompt string) string {
	t := strings.Join(strings.Fields(prompt), " ")
	if len(t) > 72 {
		cut := strings.LastIndex(t[:72], " ")
		if cut < 40 {
			cut = 72
		}
		t = t[:cut] + "…"
	}
	return t
}

// codeKilled marks a call whose command godwit killed because godwit
// itself ended (in the tool_calls record).
const codeKilled = "KILLED"

// explainKilled rewrites the results Repair gave calls whose command was
// recorded as killed (godwit ended while it ran) to say so, and records
// them. Results are pointers shared by fixed and added.
func (s *session) explainKilled(ctx context.Context, fixed, added []llm.Message) {
	procs, err := s.r.cfg.Store.Procs(ctx, s.id)
	if err != nil {
		s.r.cfg.Logger.Warn("agent: reading the session's commands", "err", err)
		return
	}
	killed := map[string]store.Proc{}
	for _, p := range procs {
		if p.Status == store.ProcKilled && p.CallID != "" && p.Job == "" {
			killed[p.CallID] = p
		}
	}
	if len(killed) == 0 {
		return
	}
	args := map[string]json.RawMessage{}
	for _, m := range fixed {
		for _, c := range m.ToolCalls() {
			args[c.ID] = c.Args
		}
	}
	for _, m := range added {
		for _, part := range m.Parts {
			tr := part.ToolResult
			if tr == nil || tr.Content != window.CancelledResult {
				continue
			}
			p, ok := killed[tr.CallID]
			if !ok {
				continue
			}
			tr.Content = "KILLED: " + p.Note + ". The command did not finish; check what it left before running it again."
			rec := store.ToolCall{SessionID: s.id, TurnID: p.TurnID, CallID: tr.CallID, Name: tr.Name, Args: recordArgs(args[tr.CallID]),
				Output: tr.Content, IsError: true, Code: codeKilled, StartedAt: p.StartedAt, Duration: p.EndedAt.Sub(p.StartedAt)}
			if _, err := s.r.cfg.Store.RecordToolCall(ctx, rec); err != nil {
				s.r.cfg.Logger.Warn("agent: recording a killed call", "call", tr.CallID, "err", err)
			}
		}
	}
}

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/godwit/godwit/llm"
)

// StoredMessage is a message of a session's history as stored.
type StoredMessage struct {
	ID        int64
	SessionID string
	TurnID    int64
	Segment   int
	Message   llm.Message
	CreatedAt time.Time
	// OutputIDs are the outputs of the message's tool results, in order
	// (0 for an empty one); nil for a message without results.
	OutputIDs []int64
	// Elided lists the tool results MessagesEliding left empty (their
	// indexes in Message.Parts); Outputs returns their texts by
	// OutputIDs.
	Elided []int
}

// OutputOf returns the output id of the tool result at Message.Parts[part]
// (0 when it has none).
func (m StoredMessage) OutputOf(part int) int64 {
	for i, id := range m.results() {
		if i == part {
			return id
		}
	}
	return 0
}

// results yields the index in Message.Parts and the output id of each
// tool result that OutputIDs covers.
func (m StoredMessage) results() iter.Seq2[int, int64] {
	return func(yield func(int, int64) bool) {
		k := 0
		for i, p := range m.Message.Parts {
			if p.ToolResult == nil || k >= len(m.OutputIDs) {
				continue
			}
			k++
			if !yield(i, m.OutputIDs[k-1]) {
				return
			}
		}
	}
}

// TurnReachedHistory reports whether turn turnID entered a user message in
// the conversation: false for a turn that ended (killed, failed, disk
// full) before its prompt was recorded, whose prompt only the turns table
// holds.
func (s *Store) TurnReachedHistory(ctx context.Context, turnID int64) (bool, error) {
	var ok bool
	err := s.r.QueryRowContext(ctx, qTurnHasPrompt, turnID).Scan(&ok)
	return ok, wrap("turn's messages", err)
}

// LastMessageID returns the id of the newest message of a segment of the
// session (0 when it has none). It reads on the writer: the engine asks
// whether the history it kept from its last turn is still the whole.
func (s *Store) LastMessageID(ctx context.Context, sessionID string, segment int) (int64, error) {
	var id int64
	err := s.w.QueryRowContext(ctx, qLastMessage, sessionID, segment).Scan(&id)
	return id, wrap("last message", err)
}

// AppendMessage stores m at the end of the session's history and indexes
// its text for Search, in one transaction, and returns the message's id.
// The contents of its tool results go to the session's outputs (once:
// the tool call recorded the same text) and the body refers to them.
func (s *Store) AppendMessage(ctx context.Context, sessionID string, turnID int64, segment int, m llm.Message) (int64, error) {
	body, contents := splitResults(m)
	b, err := json.Marshal(body)
	if err != nil {
		return 0, fmt.Errorf("store: append message: encode: %w", err)
	}
	now := s.now().UnixMilli()
	var id int64
	err = s.inTx(ctx, "append message to session "+sessionID, func(tx *txn) error {
		var outs any
		if contents != nil {
			ids := make([]int64, len(contents))
			for i, c := range contents {
				if ids[i], err = putOutput(ctx, tx, sessionID, c, now); err != nil {
					return err
				}
			}
			outs = idList(ids)
		}
		if err := tx.QueryRowContext(ctx, qAppendMessage, sessionID, null(turnID), segment, string(m.Role),
			string(b), now, outs).Scan(&id); err != nil {
			return err
		}
		// A tool message's text is its outputs, indexed as such.
		if text := messageText(body); text != "" {
			_, err = tx.ExecContext(ctx, qIndexMessage, id, text, sessionID)
		}
		return err
	})
	return id, err
}

// splitResults returns m with its tool results' contents emptied, and the
// contents (nil when m has no results). m is not changed.
func splitResults(m llm.Message) (llm.Message, []string) {
	var contents []string
	out := m
	for i, p := range m.Parts {
		if p.ToolResult == nil {
			continue
		}
		if contents == nil {
			out.Parts = append([]llm.Part(nil), m.Parts...)
		}
		contents = append(contents, p.ToolResult.Content)
		r := *p.ToolResult
		r.Content = ""
		out.Parts[i].ToolResult = &r
	}
	return out, contents
}

// Messages returns the session's messages of one segment (all segments
// when segment < 0), oldest first.
func (s *Store) Messages(ctx context.Context, sessionID string, segment int) ([]StoredMessage, error) {
	return s.messages(ctx, s.r, sessionID, segment, nil)
}

// MessagesEliding is Messages of one segment without the texts of the
// tool results whose call ids elide names: their contents stay empty and
// StoredMessage.Elided says which they are. The engine leaves out the
// outputs a segment shows only as a stub, which it never sends again.
// It reads on the writer (see the package doc).
func (s *Store) MessagesEliding(ctx context.Context, sessionID string, segment int, elide func(callID string) bool) ([]StoredMessage, error) {
	return s.messages(ctx, s.w, sessionID, segment, elide)
}

func (s *Store) messages(ctx context.Context, q execer, sessionID string, segment int, elide func(string) bool) ([]StoredMessage, error) {
	rows, err := q.QueryContext(ctx, qMessages, sessionID, segment)
	if err != nil {
		return nil, wrap("messages", err)
	}
	need := map[int64]bool{}
	ms, err := collect(rows, func(r scanner) (StoredMessage, error) {
		var m StoredMessage
		var body, outs string
		var created int64
		if err := r.Scan(&m.ID, &m.SessionID, &m.TurnID, &m.Segment, &body, &created, &outs); err != nil {
			return m, err
		}
		m.CreatedAt = fromMS(created)
		msg, derr := decodeMessage(body)
		if derr != nil {
			return m, fmt.Errorf("message %d: decode: %w", m.ID, derr)
		}
		m.Message = msg
		if outs == "" {
			return m, nil
		}
		ids, perr := parseIDList(outs)
		if perr != nil {
			return m, fmt.Errorf("message %d: decode outputs: %w", m.ID, perr)
		}
		m.OutputIDs = ids
		for i, id := range m.results() {
			switch {
			case id == 0:
			case elide != nil && elide(m.Message.Parts[i].ToolResult.CallID):
				m.Elided = append(m.Elided, i)
			default:
				need[id] = true
			}
		}
		return m, nil
	})
	if err != nil {
		return nil, wrap("messages", err)
	}
	if len(need) == 0 {
		return ms, nil
	}
	texts, err := outputTexts(ctx, q, slices.Collect(maps.Keys(need)))
	if err != nil {
		return nil, wrap("messages", err)
	}
	for i := range ms {
		fill(&ms[i], texts)
	}
	return ms, nil
}

// fill puts output texts back into m's tool results but the elided ones.
func fill(m *StoredMessage, texts map[int64]string) {
	for i, id := range m.results() {
		if id != 0 && !slices.Contains(m.Elided, i) {
			r := *m.Message.Parts[i].ToolResult
			r.Content = texts[id]
			m.Message.Parts[i].ToolResult = &r
		}
	}
}

// messageText is what Search finds a message by: its text and the tools
// it called with their arguments (the outputs of tool results are indexed
// once, as outputs). Thinking is left out: it is the model's scratch
// work, not the conversation.
func messageText(m llm.Message) string {
	var b strings.Builder
	add := func(s string) {
		if s == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	for _, p := range m.Parts {
		switch {
		case p.Kind == llm.PartText:
			add(p.Text)
		case p.Kind == llm.PartToolCall && p.ToolCall != nil:
			add(p.ToolCall.Name + " " + string(p.ToolCall.Args))
		case p.Kind == llm.PartToolResult && p.ToolResult != nil:
			add(p.ToolResult.Content)
		}
	}
	return b.String()
}

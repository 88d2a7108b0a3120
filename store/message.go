package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
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
}

// AppendMessage stores m (as its JSON) at the end of the session's history
// and indexes its text for Search, in one transaction. It returns the
// message's id.
func (s *Store) AppendMessage(ctx context.Context, sessionID string, turnID int64, segment int, m llm.Message) (int64, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return 0, fmt.Errorf("store: append message: encode: %w", err)
	}
	var id int64
	err = s.inTx(ctx, "append message to session "+sessionID, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, qAppendMessage, sessionID, nullID(turnID), segment, string(m.Role),
			string(body), s.now().UnixMilli()).Scan(&id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, qIndexMessage, id, messageText(m), sessionID)
		return err
	})
	return id, err
}

// Messages returns the session's messages of one segment (all segments
// when segment < 0), oldest first.
func (s *Store) Messages(ctx context.Context, sessionID string, segment int) ([]StoredMessage, error) {
	rows, err := s.r.QueryContext(ctx, qMessages, sessionID, segment)
	if err != nil {
		return nil, wrap("messages", err)
	}
	ms, err := collect(rows, func(r scanner) (StoredMessage, error) {
		var m StoredMessage
		var body string
		var created int64
		if err := r.Scan(&m.ID, &m.SessionID, &m.TurnID, &m.Segment, &body, &created); err != nil {
			return m, err
		}
		m.CreatedAt = fromMS(created)
		if err := json.Unmarshal([]byte(body), &m.Message); err != nil {
			return m, fmt.Errorf("message %d: decode: %w", m.ID, err)
		}
		return m, nil
	})
	return ms, wrap("messages", err)
}

// messageText is what Search finds a message by: its text, the tools it
// called with their arguments, and the tool results it carries. Thinking
// is left out: it is the model's scratch work, not the conversation.
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

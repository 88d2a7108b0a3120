package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm"
	"golang.org/x/sync/errgroup"
)

// Trace is everything recorded about one session, as the store returns
// it, with the events decoded.
type Trace struct {
	Session    store.Session
	Segments   []store.Segment
	Turns      []store.Turn
	ModelCalls []store.ModelCall
	// ToolCalls are in turn and step order and, within a step, in the
	// order the model asked for them (Load) or finished (LoadUnordered;
	// the store keeps finishing order).
	ToolCalls  []store.ToolCall
	Events     []Event
	VerifyRuns []store.VerifyRun
}

// Event is one stored event with its payload decoded.
type Event struct {
	ID     int64 // the store's row id
	TurnID int64 // the store's turn id, 0 for none
	agent.Event
	// Raw is the event's JSON as stored.
	Raw json.RawMessage
}

// Record is what trace reads of a session's record, and all it may:
// trace never writes (*store.Store implements it).
type Record interface {
	Session(ctx context.Context, id string) (store.Session, error)
	// SessionStamp changes whenever a table Load reads does.
	SessionStamp(ctx context.Context, id string) (string, error)
	Segments(ctx context.Context, sessionID string) ([]store.Segment, error)
	Turns(ctx context.Context, sessionID string) ([]store.Turn, error)
	ModelCalls(ctx context.Context, sessionID string) ([]store.ModelCall, error)
	ToolCalls(ctx context.Context, sessionID string) ([]store.ToolCall, error)
	VerifyRuns(ctx context.Context, sessionID string) ([]store.VerifyRun, error)
	Events(ctx context.Context, sessionID string) ([]store.Event, error)
	Messages(ctx context.Context, sessionID string, segment int) ([]store.StoredMessage, error)
}

// Load reads session sessionID (an id or a unique prefix of one) from
// st, with the tool calls of each step in the order the model asked for
// them (which takes reading the messages). The session's tables are read
// in parallel on the store's read pool; while a turn runs they may be a
// write or two apart, which the analysis and the views tolerate (a tool
// call without its event, say).
func Load(ctx context.Context, st Record, sessionID string) (*Trace, error) {
	return load(ctx, st, sessionID, true)
}

// LoadUnordered is Load without the messages: the tool calls of a step
// come in the order they finished. That is all Analyze needs (none of its
// figures depends on the order within a step), and it is the larger part
// of Load's time on a long session.
func LoadUnordered(ctx context.Context, st Record, sessionID string) (*Trace, error) {
	return load(ctx, st, sessionID, false)
}

// A table read here must move store.SessionStamp when it changes, or the
// web page will not see the change.
func load(ctx context.Context, st Record, sessionID string, ordered bool) (*Trace, error) {
	sess, err := st.Session(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	t := &Trace{Session: sess}
	id := sess.ID
	var (
		rows []store.Event
		msgs []store.StoredMessage
	)
	fns := []func() error{
		func() (err error) { t.Segments, err = st.Segments(ctx, id); return },
		func() (err error) { t.Turns, err = st.Turns(ctx, id); return },
		func() (err error) { t.ModelCalls, err = st.ModelCalls(ctx, id); return },
		func() (err error) { t.ToolCalls, err = st.ToolCalls(ctx, id); return },
		func() (err error) { t.VerifyRuns, err = st.VerifyRuns(ctx, id); return },
		func() (err error) { rows, err = st.Events(ctx, id); return },
	}
	if ordered {
		fns = append(fns, func() (err error) { msgs, err = st.Messages(ctx, id, -1); return })
	}
	var g errgroup.Group
	for _, fn := range fns {
		g.Go(fn)
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	t.Events = decodeEvents(rows)
	sortToolCalls(t.ToolCalls, callOrder(msgs))
	return t, nil
}

// decodeEvents decodes stored events. An event whose data does not decode
// is kept with its type and time only, so one bad row does not hide a
// session. Tool events (tool.started, tool.finished) are decoded only
// when they carry a diff: the store's tool calls hold the rest of what
// they say, in full, and decoding their output previews was most of
// Load's time on long sessions. The others keep Raw and a nil Tool.
func decodeEvents(rows []store.Event) []Event {
	out := make([]Event, len(rows))
	for i, r := range rows {
		e := Event{ID: r.ID, TurnID: r.TurnID, Raw: r.Data}
		tool := r.Type == agent.EventToolStarted || r.Type == agent.EventToolFinished
		if len(r.Data) > 0 && (!tool || bytes.Contains(r.Data, []byte(`"diff":`))) {
			if err := json.Unmarshal(r.Data, &e.Event); err != nil {
				e.Event = agent.Event{}
			}
		}
		e.Type, e.Time = r.Type, r.Time
		if e.SessionID == "" {
			e.SessionID = r.SessionID
		}
		out[i] = e
	}
	return out
}

// callKey names a tool call within a session: call ids are unique within
// a turn, not always beyond (scripted models reuse them).
type callKey struct {
	turn int64
	id   string
}

// callOrder maps each tool call to its position in the assistant message
// that asked for it.
func callOrder(msgs []store.StoredMessage) map[callKey]int {
	order := make(map[callKey]int)
	for _, m := range msgs {
		if m.Message.Role != llm.RoleAssistant {
			continue
		}
		i := 0
		for _, p := range m.Message.Parts {
			if p.Kind == llm.PartToolCall && p.ToolCall != nil {
				order[callKey{m.TurnID, p.ToolCall.ID}] = i
				i++
			}
		}
	}
	return order
}

// sortToolCalls orders calls by turn, step, then position in the model's
// message (order; calls it does not know keep their recorded order after
// the known ones).
func sortToolCalls(calls []store.ToolCall, order map[callKey]int) {
	pos := func(c store.ToolCall) int {
		if i, ok := order[callKey{c.TurnID, c.CallID}]; ok {
			return i
		}
		return 1 << 30
	}
	sort.SliceStable(calls, func(a, b int) bool {
		x, y := calls[a], calls[b]
		if x.TurnID != y.TurnID {
			return x.TurnID < y.TurnID
		}
		if x.Step != y.Step {
			return x.Step < y.Step
		}
		return pos(x) < pos(y)
	})
}

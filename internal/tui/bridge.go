package tui

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/policy"
)

// Bridge carries the agent's events and approval questions to the UI.
// It implements agent.Sink and policy.Prompter.
//
// Emit and Ask are called from the turn loop and tool goroutines; Emit
// never blocks on the UI, which drains the (unbounded, but drained every
// frame) queue from its own goroutine. A text or thinking delta is
// concatenated into the queued delta just before it of the same type,
// turn and step, so a slow screen sees one delta per frame; every other
// event is kept, in order. After Close everything is dropped and
// questions are answered No.
type Bridge struct {
	mu     sync.Mutex
	queue  []tea.Msg
	closed bool
	wake   chan struct{} // one slot: "the queue has something"
	done   chan struct{} // closed by Close

	// frame is the least time between two deliveries to the UI, so a
	// burst of events costs one render, not one per event.
	frame time.Duration
	last  time.Time // of the last delivery; used by the one pump goroutine only
	now   func() time.Time

	nextID int // approval question ids, under mu
}

// NewBridge returns an open bridge.
func NewBridge() *Bridge {
	return &Bridge{
		wake:  make(chan struct{}, 1),
		done:  make(chan struct{}),
		frame: time.Second / 60,
		now:   time.Now,
	}
}

// eventsMsg is a batch of queued messages for the UI, in order.
type eventsMsg []tea.Msg

// eventMsg is one agent event, as the UI receives it.
type eventMsg agent.Event

// approvalRequestMsg asks the UI a question; the answer goes to reply
// (buffered, so the UI never blocks on it).
type approvalRequestMsg struct {
	id    int
	q     policy.Question
	reply chan policy.Answer
}

// approvalGoneMsg withdraws a question whose turn was cancelled.
type approvalGoneMsg struct{ id int }

// Emit implements agent.Sink.
func (b *Bridge) Emit(e agent.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	if e.Type == agent.EventTextDelta || e.Type == agent.EventThinkingDelta {
		if n := len(b.queue); n > 0 {
			if prev, ok := b.queue[n-1].(eventMsg); ok && prev.Type == e.Type && prev.Turn == e.Turn && prev.Step == e.Step {
				prev.Text += e.Text
				b.queue[n-1] = prev
				return // the wake signal for prev is still pending
			}
		}
	}
	b.push(eventMsg(e))
}

// push queues m and wakes the UI. Callers hold mu.
func (b *Bridge) push(m tea.Msg) {
	b.queue = append(b.queue, m)
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Ask implements policy.Prompter: it shows q in the transcript and waits
// for y, n or a, or for ctx (a cancelled turn withdraws the question).
func (b *Bridge) Ask(ctx context.Context, q policy.Question) (policy.Answer, error) {
	reply := make(chan policy.Answer, 1)
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return policy.Answer{Choice: policy.No, Note: "the chat has closed"}, nil
	}
	b.nextID++
	id := b.nextID
	b.push(approvalRequestMsg{id: id, q: q, reply: reply})
	b.mu.Unlock()

	select {
	case a := <-reply:
		return a, nil
	case <-ctx.Done():
		b.mu.Lock()
		if !b.closed {
			b.push(approvalGoneMsg{id: id})
		}
		b.mu.Unlock()
		return policy.Answer{}, ctx.Err()
	case <-b.done:
		return policy.Answer{Choice: policy.No, Note: "the chat has closed"}, nil
	}
}

// Close drops whatever comes after it and releases waiting questions.
func (b *Bridge) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		b.queue = nil
		close(b.done)
	}
}

// drain takes everything queued, without waiting.
func (b *Bridge) drain() []tea.Msg {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.queue
	b.queue = nil
	return q
}

// next blocks until something is queued (and at least a frame has passed
// since the previous delivery, so a burst costs one render), then takes
// it all. It returns false once the bridge is closed or ctx is done.
func (b *Bridge) next(ctx context.Context) ([]tea.Msg, bool) {
	for {
		select {
		case <-b.wake:
		case <-b.done:
			return nil, false
		case <-ctx.Done():
			return nil, false
		}
		if d := b.frame - b.now().Sub(b.last); d > 0 {
			select {
			case <-time.After(d):
			case <-b.done:
				return nil, false
			case <-ctx.Done():
				return nil, false
			}
		}
		b.last = b.now()
		if q := b.drain(); len(q) > 0 {
			return q, true
		}
		// A signal left over from a Drain that already took its
		// messages: wait again.
	}
}

// pump delivers the bridge's messages to send (tea.Program.Send) until
// the bridge closes. send may block while the UI is busy; the agent does
// not, as Emit only queues.
func (b *Bridge) pump(ctx context.Context, send func(tea.Msg)) {
	for {
		q, ok := b.next(ctx)
		if !ok {
			return
		}
		send(eventsMsg(q))
	}
}

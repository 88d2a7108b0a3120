package window

import (
	"context"
	"fmt"
	"sync"

	"github.com/godwit/godwit/llm"
)

// Pages keeps what the window decides, so that a resumed session, in
// another process, builds the same requests byte for byte: the prefix a
// segment was first sent with, the pages outputs went to, and how each
// output is shown. Wiring adapts the store to it; MemPages is the
// in-memory fake.
type Pages interface {
	// PutPage keeps an output whole and returns its id ("p42").
	PutPage(ctx context.Context, p Page) (string, error)
	// PageText returns the text a page keeps: a resumed session leaves
	// out of its history the outputs already paged, and compaction reads
	// them back from their pages when it shrinks them further.
	PageText(ctx context.Context, id string) (string, error)
	// RecordShown stores (or replaces) how one output is shown in a
	// segment.
	RecordShown(ctx context.Context, sessionID string, segment int, s Shown) error
	// Shown returns a segment's records, oldest first.
	Shown(ctx context.Context, sessionID string, segment int) ([]Shown, error)
	// SegmentPrefix returns the prefix a segment was first sent with;
	// ok is false when none was kept.
	SegmentPrefix(ctx context.Context, sessionID string, segment int) (p Prefix, ok bool, err error)
	// SetSegmentPrefix keeps a segment's prefix.
	SetSegmentPrefix(ctx context.Context, sessionID string, segment int, p Prefix) error
}

// Page is a tool output kept whole.
type Page struct {
	SessionID string
	Segment   int
	Kind      string
	Tags      []string
	Tokens    int
	Summary   string
	Text      string
}

// Shown says how one tool output appears in a segment's requests.
type Shown struct {
	CallID string
	// Level is LevelCapped, LevelSummary or LevelStub.
	Level  int
	PageID string
	// Text replaces the output in the window.
	Text string
}

// Prefix is what a segment's requests start with: the system text (the
// prompt with rules, memory, skills and the deferred listing) and the tool
// table. Parts are the system text's named blocks, for accounting.
type Prefix struct {
	System string `json:"system"`
	// Base is the system prompt without the Parts, for accounting.
	Base  string         `json:"base"`
	Parts []Text         `json:"parts,omitempty"`
	Tools []llm.ToolSpec `json:"tools"`
}

// MemPages is Pages in memory, for tests and for embedders without a
// store.
type MemPages struct {
	mu       sync.Mutex
	pages    []Page
	shown    map[string][]Shown
	prefixes map[string]Prefix
}

func segKey(sessionID string, segment int) string { return fmt.Sprintf("%s/%d", sessionID, segment) }

// PutPage implements Pages.
func (m *MemPages) PutPage(_ context.Context, p Page) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pages = append(m.pages, p)
	return fmt.Sprintf("p%d", len(m.pages)), nil
}

// Page returns a page by id, for tests.
func (m *MemPages) Page(id string) (Page, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int
	if _, err := fmt.Sscanf(id, "p%d", &n); err != nil || n < 1 || n > len(m.pages) {
		return Page{}, false
	}
	return m.pages[n-1], true
}

// PageText implements Pages.
func (m *MemPages) PageText(_ context.Context, id string) (string, error) {
	p, ok := m.Page(id)
	if !ok {
		return "", fmt.Errorf("window: no page %s", id)
	}
	return p.Text, nil
}

// RecordShown implements Pages.
func (m *MemPages) RecordShown(_ context.Context, sessionID string, segment int, s Shown) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shown == nil {
		m.shown = map[string][]Shown{}
	}
	k := segKey(sessionID, segment)
	for i, old := range m.shown[k] {
		if old.CallID == s.CallID {
			m.shown[k][i] = s
			return nil
		}
	}
	m.shown[k] = append(m.shown[k], s)
	return nil
}

// Shown implements Pages.
func (m *MemPages) Shown(_ context.Context, sessionID string, segment int) ([]Shown, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Shown(nil), m.shown[segKey(sessionID, segment)]...), nil
}

// SegmentPrefix implements Pages.
func (m *MemPages) SegmentPrefix(_ context.Context, sessionID string, segment int) (Prefix, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.prefixes[segKey(sessionID, segment)]
	return p, ok, nil
}

// SetSegmentPrefix implements Pages.
func (m *MemPages) SetSegmentPrefix(_ context.Context, sessionID string, segment int, p Prefix) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.prefixes == nil {
		m.prefixes = map[string]Prefix{}
	}
	m.prefixes[segKey(sessionID, segment)] = p
	return nil
}

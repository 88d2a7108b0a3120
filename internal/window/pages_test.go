package window

import (
	"context"
	"fmt"
	"sync"
)

// MemPages is Pages in memory (tests).
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

package agent

import (
	"context"
	"fmt"
	"sync"

	"github.com/godwit/godwit/internal/window"
)

// MemPages is Pages in memory (tests).
type MemPages struct {
	mu       sync.Mutex
	pages    []window.Page
	shown    map[string][]window.Shown
	prefixes map[string]window.Prefix
}

func segKey(sessionID string, segment int) string { return fmt.Sprintf("%s/%d", sessionID, segment) }

// PutPage implements window.Pages.
func (m *MemPages) PutPage(_ context.Context, p window.Page) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pages = append(m.pages, p)
	return fmt.Sprintf("p%d", len(m.pages)), nil
}

// Page returns a page by id, for tests.
func (m *MemPages) Page(id string) (window.Page, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int
	if _, err := fmt.Sscanf(id, "p%d", &n); err != nil || n < 1 || n > len(m.pages) {
		return window.Page{}, false
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
func (m *MemPages) RecordShown(_ context.Context, sessionID string, segment int, s window.Shown) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shown == nil {
		m.shown = map[string][]window.Shown{}
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
func (m *MemPages) Shown(_ context.Context, sessionID string, segment int) ([]window.Shown, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]window.Shown(nil), m.shown[segKey(sessionID, segment)]...), nil
}

// SegmentPrefix implements Pages.
func (m *MemPages) SegmentPrefix(_ context.Context, sessionID string, segment int) (window.Prefix, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.prefixes[segKey(sessionID, segment)]
	return p, ok, nil
}

// SetSegmentPrefix implements Pages.
func (m *MemPages) SetSegmentPrefix(_ context.Context, sessionID string, segment int, p window.Prefix) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.prefixes == nil {
		m.prefixes = map[string]window.Prefix{}
	}
	m.prefixes[segKey(sessionID, segment)] = p
	return nil
}

package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/window"
)

// StorePages adapts the store to window.Pages, so that the window's
// decisions (pages, how each output is shown, each segment's prefix) live
// with the session and a later process builds the same requests. The
// window does not import the store: it stays a pure package.
func StorePages(st *store.Store) window.Pages { return storePages{st} }

type storePages struct{ st *store.Store }

func (p storePages) PutPage(ctx context.Context, pg window.Page) (string, error) {
	return p.st.PutPage(ctx, store.Page{SessionID: pg.SessionID, Segment: pg.Segment, Kind: pg.Kind, Tags: pg.Tags,
		Tokens: pg.Tokens, Summary: pg.Summary, Text: pg.Text})
}

func (p storePages) PageText(ctx context.Context, id string) (string, error) {
	pg, err := p.st.Page(ctx, id)
	return pg.Text, err
}

func (p storePages) RecordShown(ctx context.Context, sessionID string, segment int, s window.Shown) error {
	return p.st.RecordCompaction(ctx, store.Compaction{SessionID: sessionID, Segment: segment, CallID: s.CallID,
		Level: s.Level, PageID: s.PageID, Text: s.Text})
}

func (p storePages) Shown(ctx context.Context, sessionID string, segment int) ([]window.Shown, error) {
	cs, err := p.st.Compactions(ctx, sessionID, segment)
	if err != nil {
		return nil, err
	}
	out := make([]window.Shown, len(cs))
	for i, c := range cs {
		out[i] = window.Shown{CallID: c.CallID, Level: c.Level, PageID: c.PageID, Text: c.Text}
	}
	return out, nil
}

func (p storePages) SegmentPrefix(ctx context.Context, sessionID string, segment int) (window.Prefix, bool, error) {
	raw, err := p.st.SegmentPrefix(ctx, sessionID, segment)
	if err != nil || raw == "" {
		return window.Prefix{}, false, err
	}
	var pf window.Prefix
	if err := json.Unmarshal([]byte(raw), &pf); err != nil {
		return window.Prefix{}, false, fmt.Errorf("segment %d prefix: %w", segment, err)
	}
	return pf, true, nil
}

func (p storePages) SetSegmentPrefix(ctx context.Context, sessionID string, segment int, pf window.Prefix) error {
	b, err := json.Marshal(pf)
	if err != nil {
		return err
	}
	return p.st.SetSegmentPrefix(ctx, sessionID, segment, string(b))
}

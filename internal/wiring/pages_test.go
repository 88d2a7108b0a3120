package wiring

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
)

// TestStorePagesKeepsWhatTheWindowDecided: what the window keeps through
// storePages comes back as it was put, for a later process: the page's
// text, each output's latest record, the segment's prefix.
func TestStorePagesKeepsWhatTheWindowDecided(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	if err := st.CreateSession(ctx, store.Session{ID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if err := st.StartSegment(ctx, "s1", 1, "start"); err != nil {
		t.Fatal(err)
	}
	var p window.Pages = storePages{st}
	id, err := p.PutPage(ctx, window.Page{SessionID: "s1", Segment: 1, Kind: "go test", Tokens: 3, Summary: "ok", Text: "PASS\nok x 0.1s"})
	if err != nil {
		t.Fatal(err)
	}
	if text, err := p.PageText(ctx, id); err != nil || text != "PASS\nok x 0.1s" {
		t.Errorf("PageText(%s) = %q, %v", id, text, err)
	}
	for _, s := range []window.Shown{{CallID: "c1", Level: window.LevelSummary, Text: "ok"}, {CallID: "c1", Level: window.LevelStub, PageID: id, Text: "[paged]"}} {
		if err := p.RecordShown(ctx, "s1", 1, s); err != nil {
			t.Fatal(err)
		}
	}
	want := []window.Shown{{CallID: "c1", Level: window.LevelStub, PageID: id, Text: "[paged]"}}
	if got, err := p.Shown(ctx, "s1", 1); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Shown = %+v, %v; want %+v", got, err, want)
	}
	if _, ok, err := p.SegmentPrefix(ctx, "s1", 1); ok || err != nil {
		t.Errorf("a prefix before one was kept: %v, %v", ok, err)
	}
	pf := window.Prefix{System: "sys\n\nrules", Base: "sys", Parts: []window.Text{{Part: window.PartRules, Body: "rules"}},
		Tools: []llm.ToolSpec{{Name: "grep", Description: "search", Schema: json.RawMessage(`{"type":"object"}`)}}}
	if err := p.SetSegmentPrefix(ctx, "s1", 1, pf); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := p.SegmentPrefix(ctx, "s1", 1); !ok || err != nil || !reflect.DeepEqual(got, pf) {
		t.Errorf("SegmentPrefix = %+v, %v, %v; want %+v", got, ok, err, pf)
	}
}

package recall

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/godwit/godwit/store"
	"github.com/godwit/godwit/store/storetest"
	"github.com/godwit/godwit/tool"
)

func TestRecall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.Open(t)
	id := store.NewID()
	if err := st.CreateSession(ctx, store.Session{ID: id}); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", MaxOutput+10)
	page, _ := st.PutPage(ctx, store.Page{SessionID: id, Segment: 1, Kind: "tool_output", Text: "--- FAIL: TestParse (0.01s)\nparse_test.go:7: zebra"})
	big, _ := st.PutPage(ctx, store.Page{SessionID: id, Segment: 1, Kind: "tool_output", Text: long})
	_, _ = st.AddDecision(ctx, store.Decision{SessionID: id, Source: "user", Kind: store.KindRequest, Turn: 4, Text: "Here is the whole pasted log\nline two"})
	_ = st.StartSegment(ctx, id, 1, "start")
	_ = st.EndSegment(ctx, id, 1, "## Current task\nthe handoff text", 10)

	ctx = tool.WithSession(ctx, tool.Session{ID: id})
	r := New(st)
	tests := []struct {
		query, want string
		errCode     string
	}{
		{page, "parse_test.go:7: zebra", ""},
		{"seg1", "the handoff text", ""},
		{"zebra", page + " (page", ""},
		{"p999", "", tool.CodeNotFound},
		{"seg7", "", tool.CodeNotFound},
		{"nothing-like-this", "no matches", ""},
		{big, "recall {\"query\":\"" + big + "\",\"offset\":24576} reads on", ""},
		{"D1", "[D1: the user's words, turn 4]\nHere is the whole pasted log\nline two", ""},
		{"D9", "", tool.CodeNotFound},
		{"", "", tool.CodeBadArgs},
	}
	for _, tc := range tests {
		raw, _ := json.Marshal(map[string]string{"query": tc.query})
		res, err := r.Run(ctx, raw)
		if tc.errCode != "" {
			if te := tool.AsToolError(err); err == nil || te.Code != tc.errCode {
				t.Errorf("%q: err = %v, want %s", tc.query, err, tc.errCode)
			}
			continue
		}
		if err != nil || !strings.Contains(res.Content, tc.want) {
			t.Errorf("%q: %q, %v; want %q", tc.query, res.Content, err, tc.want)
		}
	}
}

// A window smaller than recall's own cap bounds what one call returns.
func TestRecallFitsTheWindowsShare(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.Open(t)
	id := store.NewID()
	_ = st.CreateSession(ctx, store.Session{ID: id})
	big, _ := st.PutPage(ctx, store.Page{SessionID: id, Segment: 1, Kind: "tool_output", Text: strings.Repeat("é", MaxOutput)})
	ctx = tool.WithSession(ctx, tool.Session{ID: id, MaxOutputBytes: 5000})
	raw, _ := json.Marshal(map[string]string{"query": big})
	res, err := New(st).Run(ctx, raw)
	if err != nil || len(res.Content) > 5200 || !strings.Contains(res.Content, `"offset":5000} reads on`) {
		t.Errorf("%d bytes, %v: %q", len(res.Content), err, res.Content[len(res.Content)-100:])
	}
}

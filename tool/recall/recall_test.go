package recall

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/store"
	"github.com/godwit/godwit/tool"
)

func TestRecall(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
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
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
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

// recall also cuts in the window's tokens when the session says how.
func TestRecallFitsTheSharesTokens(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id := store.NewID()
	_ = st.CreateSession(ctx, store.Session{ID: id})
	big, _ := st.PutPage(ctx, store.Page{SessionID: id, Segment: 1, Kind: "tool_output", Text: strings.Repeat("0123456789\n", 2000)})
	count := func(s string) int { return len(s) / 2 }
	ctx = tool.WithSession(ctx, tool.Session{ID: id, MaxOutputBytes: 9000, MaxOutputTokens: 1000, CountTokens: count})
	raw, _ := json.Marshal(map[string]string{"query": big})
	res, err := New(st).Run(ctx, raw)
	body, _, _ := strings.Cut(res.Content, "\n[truncated")
	if err != nil || count(body) > 1000 || !strings.HasSuffix(body, "0123456789\n") || !strings.Contains(res.Content, `reads on]`) {
		t.Errorf("%d tokens, %v: %q", count(body), err, res.Content[len(res.Content)-100:])
	}
}

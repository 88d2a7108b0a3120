package recall

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/llm"
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
	_, _ = st.AddDecision(ctx, store.Decision{SessionID: id, Source: "user", Kind: "request", Turn: 4, Text: "Here is the whole pasted log\nline two"})
	_ = st.StartSegment(ctx, id, 1, "start")
	_ = st.EndSegment(ctx, id, 1, "## Current task\nthe handoff text", 10)

	ctx = tool.WithSession(ctx, tool.Session{ID: id})
	r := New(st.In(""))
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

// recallPage stores text as a page of a new session and recalls it
// with the session s (its ID set here).
func recallPage(t *testing.T, text string, s tool.Session) string {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t)
	s.ID = store.NewID()
	_ = st.CreateSession(ctx, store.Session{ID: s.ID})
	page, _ := st.PutPage(ctx, store.Page{SessionID: s.ID, Segment: 1, Kind: "tool_output", Text: text})
	raw, _ := json.Marshal(map[string]string{"query": page})
	res, err := New(st.In("")).Run(tool.WithSession(ctx, s), raw)
	if err != nil {
		t.Fatal(err)
	}
	return res.Content
}

// A window smaller than recall's own cap bounds what one call returns.
// A message whose paste the ledger shows as a marker comes back whole,
// in parts when it is long, and a superseded one says so.
func TestRecallAnEntryWhole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.Open(t)
	id := store.NewID()
	_ = st.CreateSession(ctx, store.Session{ID: id})
	var log strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&log, "2026-11-30T02:00:%02dZ INFO step %d done\n", i%60, i)
	}
	text := "Here is the log:\n```\n" + log.String() + "```\nWhat failed?"
	_, _ = st.AddDecision(ctx, store.Decision{SessionID: id, Source: "user", Kind: "request", Turn: 1, Text: text})
	_, _ = st.AddDecision(ctx, store.Decision{SessionID: id, Source: "user", Kind: "instruction", Turn: 2, Text: "Never push."})
	_, _ = st.AddDecision(ctx, store.Decision{SessionID: id, Source: "user", Kind: "instruction", Turn: 3, Text: "You may push now."})
	_ = st.SupersedeDecision(ctx, id, 2, 3)
	ctx = tool.WithSession(ctx, tool.Session{ID: id})
	var got strings.Builder
	for offset, n := 0, 0; n < 10; n++ {
		raw, _ := json.Marshal(map[string]any{"query": "D1", "offset": offset})
		res, err := New(st.In("")).Run(ctx, raw)
		if err != nil {
			t.Fatal(err)
		}
		body := strings.TrimPrefix(res.Content, "[D1: the user's words, turn 1]\n")
		body, more, _ := strings.Cut(body, "\n[truncated: bytes ")
		got.WriteString(body)
		if more == "" {
			break
		}
		offset = got.Len()
	}
	if got.String() != text {
		t.Errorf("recalled %d bytes of %d", got.Len(), len(text))
	}
	raw, _ := json.Marshal(map[string]string{"query": "D2"})
	if res, _ := New(st.In("")).Run(ctx, raw); !strings.HasPrefix(res.Content, "[D2: the user's words, turn 2; superseded by D3]\nNever push.") {
		t.Errorf("D2: %q", res.Content)
	}
}

func TestRecallFitsTheWindowsShare(t *testing.T) {
	t.Parallel()
	out := recallPage(t, strings.Repeat("é", MaxOutput), tool.Session{MaxOutputBytes: 5000})
	if len(out) > 5200 || !strings.Contains(out, `"offset":5000} reads on`) {
		t.Errorf("%d bytes: %q", len(out), out[len(out)-100:])
	}
}

// recall also cuts in the window's tokens when the session says how.
func TestRecallFitsTheSharesTokens(t *testing.T) {
	t.Parallel()
	count := func(s string) int { return len(s) / 2 }
	out := recallPage(t, strings.Repeat("0123456789\n", 2000), tool.Session{MaxOutputBytes: 9000, MaxOutputTokens: 1000, CountTokens: count})
	body, _, _ := strings.Cut(out, "\n[truncated")
	if count(body) > 1000 || !strings.HasSuffix(body, "0123456789\n") || !strings.Contains(out, `reads on]`) {
		t.Errorf("%d tokens: %q", count(body), out[len(out)-100:])
	}
}

// Another workspace's pages, handoffs, Decisions and words are not
// found, by any id or offset a model could guess.
func TestRecallKeepsToTheWorkspace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.Open(t)
	const secret = "aws_secret_access_key=QQQsecret"
	for _, s := range []store.Session{{ID: "theirs", Workspace: "/a"}, {ID: "ours", Workspace: "/b"}} {
		if err := st.CreateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = st.PutPage(ctx, store.Page{SessionID: "theirs", Segment: 1, Kind: "tool_output", Text: secret})
	_, _ = st.AddDecision(ctx, store.Decision{SessionID: "theirs", Source: "user", Text: secret})
	_ = st.StartSegment(ctx, "theirs", 1, "start")
	_ = st.EndSegment(ctx, "theirs", 1, secret, 10)
	_, _ = st.AppendMessage(ctx, "theirs", 0, 1, llm.UserText(secret))
	r := New(st.In("/b"))
	for _, sess := range []string{"ours", "theirs", ""} {
		ctx := tool.WithSession(ctx, tool.Session{ID: sess})
		for _, q := range []string{"p1", "p2", "seg1", "D1", "QQQsecret", "aws_secret_access_key"} {
			for _, off := range []int{0, 3} {
				raw, _ := json.Marshal(map[string]any{"query": q, "offset": off})
				res, _ := r.Run(ctx, raw)
				if strings.Contains(res.Content, "=QQQ") {
					t.Errorf("session %q, recall %s at %d: %q", sess, q, off, res.Content)
				}
			}
		}
	}
}

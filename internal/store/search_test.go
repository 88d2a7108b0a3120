package store

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/godwit/godwit/llm"
)

func TestPages(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "")
	from := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	want := Page{SessionID: sess.ID, Segment: 1, Kind: "tool_output", Tags: []string{"go test", "shell"}, Tokens: 500,
		From: from, To: from.Add(time.Minute), Summary: "go test output, 500 lines", Text: "--- FAIL: TestAdd\nadd_test.go:7: got -1 want 3"}
	id, err := s.PutPage(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(id, "p") {
		t.Fatalf("PutPage id = %q, want p<number>", id)
	}
	want.ID = id
	got, err := s.Page(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Page:\n got %+v\nwant %+v", got, want)
	}
	noTags, _ := s.PutPage(ctx, Page{SessionID: sess.ID, Text: "x"})
	if p, _ := s.Page(ctx, noTags); p.Tags == nil || len(p.Tags) != 0 || !p.From.IsZero() {
		t.Errorf("page without tags or times = %+v", p)
	}

	for _, bad := range []string{"p999", "42", "p", "px", "p-1", "", "m1"} {
		if _, err := s.Page(ctx, bad); !errors.Is(err, ErrNotFound) {
			t.Errorf("Page(%q) = %v, want ErrNotFound", bad, err)
		}
	}
	if _, err := s.PutPage(ctx, Page{ID: "p1", SessionID: sess.ID}); err == nil || !strings.Contains(err.Error(), "leave it empty") {
		t.Errorf("PutPage with an ID = %v", err)
	}
}

// searchFixture stores one of each kind of searchable text in two sessions.
func searchFixture(t *testing.T, s *Store) (a, b Session, pageID string) {
	t.Helper()
	ctx := context.Background()
	a, b = newSession(t, s, "aaaa"), newSession(t, s, "bbbb")
	pageID, err := s.PutPage(ctx, Page{SessionID: a.ID, Segment: 0, Kind: "tool_output", Tags: []string{"gotest"},
		Summary: "go test output", Text: "--- FAIL: TestAdd (0.00s)\n    add_test.go:7: Add(1, 2) = -1, want 3\nFAIL"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartSegment(ctx, a.ID, 0, "start"); err != nil {
		t.Fatal(err)
	}
	if err := s.EndSegment(ctx, a.ID, 0, "## Decisions\n- never touch the vendor directory (the user, turn 1)", 20); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("filler words here. ", 30) + "The database migration must stay reversible." + strings.Repeat(" more filler", 30)
	for _, m := range []llm.Message{
		llm.UserText(long),
		{Role: llm.RoleAssistant, Parts: []llm.Part{{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c1", Name: "grep", Args: []byte(`{"pattern":"Subtract"}`)}}}},
		{Role: llm.RoleTool, Parts: []llm.Part{{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c1", Content: "math.go:3: func Subtract(a, b int) int"}}}},
		{Role: llm.RoleAssistant, Parts: []llm.Part{{Kind: llm.PartThinking, Thinking: &llm.Thinking{Text: "secretthought"}}, llm.TextPart("café naïve résumé 東京")}},
	} {
		if _, err := s.AppendMessage(ctx, a.ID, 0, 1, m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AppendMessage(ctx, b.ID, 0, 0, llm.UserText("the database in session b")); err != nil {
		t.Fatal(err)
	}
	return a, b, pageID
}

func TestSearch(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	a, b, pageID := searchFixture(t, s)

	for _, c := range []struct {
		name, session, query string
		wantKinds            []string // kind:session of each hit, in order
		snippet              string   // the first hit's snippet contains it
	}{
		{"page by its text", a.ID, "TestAdd", []string{"page:" + a.ID}, "TestAdd"},
		{"page by tag", a.ID, "gotest", []string{"page:" + a.ID}, ""},
		{"handoff", a.ID, "vendor", []string{"handoff:" + a.ID}, "never touch the vendor directory"},
		{"message text, snippet cut near the match", a.ID, "reversible", []string{"message:" + a.ID}, "database migration must stay reversible"},
		{"tool call arguments", a.ID, "Subtract", []string{"message:" + a.ID, "message:" + a.ID}, "Subtract"},
		{"thinking is not indexed", a.ID, "secretthought", nil, ""},
		{"diacritics folded", a.ID, "cafe", []string{"message:" + a.ID}, "café"},
		{"cjk", a.ID, "東京", []string{"message:" + a.ID}, "東京"},
		{"one session only", b.ID, "database", []string{"message:" + b.ID}, "session b"},
		{"all sessions", "", "database", []string{"message:", "message:"}, ""},
		{"prefix", a.ID, "revers*", []string{"message:" + a.ID}, ""},
		{"any word matches", a.ID, "vendor TestAdd", []string{"", ""}, ""},
		{"no match", a.ID, "zebra", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			hits, err := s.In("/w").Search(ctx, c.session, c.query, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != len(c.wantKinds) {
				t.Fatalf("Search(%q) = %d hits %+v, want %d", c.query, len(hits), hits, len(c.wantKinds))
			}
			for i, w := range c.wantKinds {
				if got := hits[i].Kind + ":" + hits[i].SessionID; !strings.HasPrefix(got, w) {
					t.Errorf("hit %d = %s, want %s", i, got, w)
				}
				if hits[i].Score <= 0 {
					t.Errorf("hit %d score %v, want > 0", i, hits[i].Score)
				}
			}
			if c.snippet != "" && !strings.Contains(hits[0].Snippet, c.snippet) {
				t.Errorf("snippet %q does not contain %q", hits[0].Snippet, c.snippet)
			}
		})
	}

	hits, _ := s.In("/w").Search(ctx, a.ID, "TestAdd", 0)
	if hits[0].ID != pageID {
		t.Errorf("page hit id = %q, want %q", hits[0].ID, pageID)
	}
	hits, _ = s.In("/w").Search(ctx, a.ID, "vendor", 0)
	if hits[0].ID != "seg0" || hits[0].Segment != 0 {
		t.Errorf("handoff hit = %+v, want seg0", hits[0])
	}
	hits, _ = s.In("/w").Search(ctx, a.ID, "reversible", 0)
	if h := hits[0]; !strings.HasPrefix(h.ID, "m") || h.Segment != 1 || len(h.Snippet) > snippetBefore+snippetAfter+8 || !strings.HasPrefix(h.Snippet, "…") {
		t.Errorf("message hit = %+v", h)
	}
	// More matching words rank higher.
	hits, _ = s.In("/w").Search(ctx, "", "database migration reversible", 0)
	if len(hits) != 2 || hits[0].SessionID != a.ID {
		t.Errorf("ranking: %+v, want session a's message first", hits)
	}
	if hits, _ := s.In("/w").Search(ctx, "", "database", 1); len(hits) != 1 {
		t.Errorf("limit 1 gave %d hits", len(hits))
	}
}

func TestSearchHostileQueries(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	searchFixture(t, s)
	for _, q := range []string{
		"", "   ", `"`, `""`, `"unterminated`, `a"b`, `AND`, `OR`, `NOT`, `a AND`, `AND OR NOT`, `NEAR(a b)`,
		`*`, `**`, `a*b`, `*a`, `-`, `-a`, `a -b`, `+`, `^a`, `a:b`, `text:vendor`, `{summary text}: x`,
		`(`, `)`, `(a OR`, `'`, `;DROP TABLE sessions;--`, `%`, `_`, `\`, "a\x00b", "\x00", "\xff\xfe",
		"emoji 🦤", "🦤", "\u0301", "e\u0301", "ﷺ", "\t\n", strings.Repeat("word ", 500), strings.Repeat("x", 10000),
		"𞤀𞤁", "𞤀𞤁*", "ｆｕｌｌｗｉｄｔｈ", "Ⅻ*", "ß*",
		`file_read`, `go test ./...`, `"a" "b"`, `a""b`, `NEAR`, `col:`, `:`, `^`,
	} {
		if _, err := s.In("/w").Search(ctx, "", q, 5); err != nil {
			t.Errorf("Search(%q) = %v", q, err)
		}
	}
	// Punctuation is literal: a query with operators still finds the words.
	if hits, err := s.In("/w").Search(ctx, "", `"vendor" AND -directory*`, 5); err != nil || len(hits) == 0 {
		t.Errorf("quoted/operator query = %v, %v; want the handoff", hits, err)
	}
}

func TestFTSQuery(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"foo", `"foo"`},
		{"foo bar", `"foo" OR "bar"`},
		{`say "hi"`, `"say" OR """hi"""`},
		{"pre*", `"pre"*`},
		{"AND - * (", `"AND"`},
		{"a\x00b", `"a" OR "b"`},
	} {
		if got, _ := ftsQuery(c.in); got != c.want {
			t.Errorf("ftsQuery(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	long := strings.Repeat("w ", 100)
	if got, terms := ftsQuery(long); len(terms) != maxTerms || strings.Count(got, " OR ") != maxTerms-1 {
		t.Errorf("ftsQuery of 100 words kept %d terms", len(terms))
	}
}

func TestSearchFollowsEdits(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	// Session ids the index cannot tokenize, or that hold quotes, still
	// filter exactly.
	odd := []string{"---", `a"b`, "A-B"}
	for _, id := range odd {
		newSession(t, s, id)
		if err := s.StartSegment(ctx, id, 0, "start"); err != nil {
			t.Fatal(err)
		}
		if err := s.EndSegment(ctx, id, 0, "first handoff mentions walrus in "+id, 5); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range odd {
		hits, err := s.In("/w").Search(ctx, id, "walrus", 10)
		if err != nil || len(hits) != 1 || hits[0].SessionID != id {
			t.Errorf("Search in session %q = %+v, %v; want its one handoff", id, hits, err)
		}
	}
	// Ending a segment again replaces its handoff in the index.
	if err := s.EndSegment(ctx, "---", 0, "second handoff mentions narwhal", 5); err != nil {
		t.Fatal(err)
	}
	if hits, _ := s.In("/w").Search(ctx, "---", "walrus", 10); len(hits) != 0 {
		t.Errorf("old handoff still found: %+v", hits)
	}
	if hits, _ := s.In("/w").Search(ctx, "---", "narwhal", 10); len(hits) != 1 {
		t.Errorf("new handoff not found: %+v", hits)
	}
	// An empty handoff is not indexed, and a segment without one is not a hit.
	if err := s.StartSegment(ctx, "---", 1, "reset"); err != nil {
		t.Fatal(err)
	}
	if n := countIndex(t, s); n != 3 {
		t.Errorf("index holds %d entries, want 3 (one handoff per session)", n)
	}
}

func countIndex(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	// A contentless table counts its rows through the docsize shadow table.
	if err := s.r.QueryRow("SELECT count(*) FROM search_fts_docsize").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSnippet(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("alpha beta ", 20) + "NEEDLE here" + strings.Repeat(" gamma delta", 20)
	for _, c := range []struct {
		name, text string
		terms      []string
		want       func(string) bool
	}{
		{"short text whole", "a  b\n\nc", []string{"b"}, func(s string) bool { return s == "a b c" }},
		{"no match: the start", long, []string{"zzz"}, func(s string) bool { return strings.HasPrefix(s, "alpha beta") && strings.HasSuffix(s, "…") }},
		{"around the match, between words", long, []string{"needle"}, func(s string) bool {
			return strings.HasPrefix(s, "…alpha") || strings.HasPrefix(s, "…beta") && strings.Contains(s, "NEEDLE here") && strings.HasSuffix(s, "…")
		}},
		{"earliest term wins", "x y needle z haystack", []string{"haystack", "needle"}, func(s string) bool { return strings.Contains(s, "needle") }},
		{"multibyte safe", strings.Repeat("é", 200) + "東京" + strings.Repeat("ü", 200), []string{"東京"}, func(s string) bool {
			return utf8.ValidString(s) && strings.Contains(s, "東京")
		}},
		{"empty", "", []string{"a"}, func(s string) bool { return s == "" }},
	} {
		if got := snippet(c.text, c.terms); !c.want(got) {
			t.Errorf("%s: snippet = %q", c.name, got)
		}
	}
}

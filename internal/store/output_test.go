package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/godwit/godwit/llm"
)

// bigOutput is a tool output long enough to be deflated, with a word
// found nowhere else (zanzibar).
func bigOutput(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%d\tfunc handler%d(w http.ResponseWriter, r *http.Request) { serve(w, r, %d) }\n", i+1, i, i*7)
		if i == 40 {
			b.WriteString("41\t// zanzibar: the one line search must find\n")
		}
	}
	return b.String()
}

// toolEvent is a tool.finished event's data as the agent encodes it,
// with the output (or the placeholder) in place.
func toolEvent(callID, output string) []byte {
	b, _ := json.Marshal(map[string]any{"type": "tool.finished", "tool": map[string]any{"call_id": callID, "name": "file_read", "output": output}})
	return b
}

// recordOutput writes one output the four ways a turn does: the tool
// call, the tool message, a page and the tool.finished event.
func recordOutput(t testing.TB, s *Store, sessionID, callID, out string) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.RecordToolCall(ctx, ToolCall{SessionID: sessionID, CallID: callID, Name: "file_read", Args: json.RawMessage(`{"path":"a.go"}`), Output: out}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendEvent(ctx, Event{SessionID: sessionID, Type: "tool.finished", Data: toolEvent(callID, OutputPlaceholder), Output: out, OutputMax: 4096}); err != nil {
		t.Fatal(err)
	}
	msgs := []llm.Message{
		{Role: llm.RoleAssistant, Parts: []llm.Part{{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: callID, Name: "file_read", Args: json.RawMessage(`{"path":"a.go"}`)}}}},
		{Role: llm.RoleTool, Parts: []llm.Part{{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: callID, Content: out, Untrusted: true}}}},
	}
	for _, m := range msgs {
		if _, err := s.AppendMessage(ctx, sessionID, 0, 1, m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.PutPage(ctx, Page{SessionID: sessionID, Segment: 1, Kind: "tool_output", Tags: []string{"file_read", callID}, Summary: "[paged out]", Text: out}); err != nil {
		t.Fatal(err)
	}
}

func count(t testing.TB, s *Store, query string, args ...any) int {
	t.Helper()
	var n int
	if err := s.w.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOutputStoredOnce: an output recorded as a tool call, a message, a
// page and an event is one row, and every reader gets the text back.
func TestOutputStoredOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		out  string
	}{
		{"short", "ok  \tgithub.com/x/y\t0.01s\n"},
		{"long, deflated", bigOutput(20_000)},
		{"long, invalid UTF-8", bigOutput(6000) + "\xff\xfe tail"},
		{"empty", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := openTest(t)
			sess := newSession(t, s, "")
			recordOutput(t, s, sess.ID, "c1", c.out)
			want := 1
			if c.out == "" {
				want = 0
			}
			if n := count(t, s, `SELECT count(*) FROM outputs`); n != want {
				t.Errorf("%d outputs rows, want %d", n, want)
			}
			if n := count(t, s, `SELECT count(*) FROM tool_calls WHERE output <> ''`) + count(t, s, `SELECT count(*) FROM pages WHERE text <> ''`); c.out != "" && n != 0 {
				t.Errorf("%d tool calls or pages still hold the text", n)
			}
			if n := count(t, s, `SELECT count(*) FROM messages WHERE instr(body, 'handler1(') > 0`) + count(t, s, `SELECT count(*) FROM events WHERE instr(data, 'handler1(') > 0`); n != 0 {
				t.Errorf("%d messages or events still hold the text", n)
			}
			if len(c.out) > 1000 && count(t, s, `SELECT count(*) FROM outputs WHERE packed IS NOT NULL`) != 1 {
				t.Error("a long output was not deflated")
			}

			tcs, err := s.ToolCalls(ctx, sess.ID)
			if err != nil || len(tcs) != 1 || tcs[0].Output != c.out {
				t.Errorf("ToolCalls: %v, output equal: %v", err, len(tcs) == 1 && tcs[0].Output == c.out)
			}
			msgs, err := s.Messages(ctx, sess.ID, 1)
			if err != nil || len(msgs) != 2 {
				t.Fatalf("Messages: %d, %v", len(msgs), err)
			}
			if r := msgs[1].Message.Parts[0].ToolResult; r.Content != c.out || !r.Untrusted || r.CallID != "c1" {
				t.Errorf("message result: call %q, untrusted %v, content equal %v", r.CallID, r.Untrusted, r.Content == c.out)
			}
			if p, err := s.Page(ctx, "p1"); err != nil || p.Text != c.out {
				t.Errorf("Page: %v, text equal %v", err, p.Text == c.out)
			}
			evs, err := s.Events(ctx, sess.ID)
			if err != nil || len(evs) != 1 {
				t.Fatalf("Events: %d, %v", len(evs), err)
			}
			if got, want := string(evs[0].Data), string(toolEvent("c1", Preview(c.out, 4096))); got != want {
				t.Errorf("event data:\n got %.300s\nwant %.300s", got, want)
			}

			// Eliding leaves the result empty until Hydrate.
			el, err := s.MessagesEliding(ctx, sess.ID, 1, func(id string) bool { return id == "c1" })
			if err != nil {
				t.Fatal(err)
			}
			if c.out != "" && (el[1].Message.Parts[0].ToolResult.Content != "" || len(el[1].Elided) != 1) {
				t.Errorf("elided: %q, %v", el[1].Message.Parts[0].ToolResult.Content, el[1].Elided)
			}
			if err := s.Hydrate(ctx, el); err != nil || el[1].Message.Parts[0].ToolResult.Content != c.out {
				t.Errorf("Hydrate: %v", err)
			}
		})
	}
}

// TestOutputSearch: an output is found once, as its page when it was
// paged out and as its message before that.
func TestOutputSearch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	a, b := newSession(t, s, "aaaa"), newSession(t, s, "bbbb")
	out := bigOutput(8000)
	recordOutput(t, s, a.ID, "c1", out)
	// The same text in another session is its own row.
	if _, err := s.AppendMessage(ctx, b.ID, 0, 0, llm.Message{Role: llm.RoleTool, Parts: []llm.Part{{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "x", Content: out}}}}); err != nil {
		t.Fatal(err)
	}
	hits, err := s.In("/w").Search(ctx, a.ID, "zanzibar", 0)
	if err != nil || len(hits) != 1 || hits[0].ID != "p1" || !strings.Contains(hits[0].Snippet, "zanzibar") {
		t.Fatalf("Search(a) = %+v, %v; want page p1 once", hits, err)
	}
	hits, err = s.In("/w").Search(ctx, b.ID, "zanzibar", 0)
	if err != nil || len(hits) != 1 || hits[0].Kind != "message" || hits[0].SessionID != b.ID {
		t.Fatalf("Search(b) = %+v, %v; want its message", hits, err)
	}
	if n := count(t, s, `SELECT count(*) FROM outputs`); n != 2 {
		t.Errorf("%d outputs, want one per session", n)
	}
	// Deleting a session drops its outputs from the index.
	if _, err := s.w.Exec(`DELETE FROM sessions WHERE id = ?`, b.ID); err != nil {
		t.Fatal(err)
	}
	if hits, _ := s.In("/w").Search(ctx, "", "zanzibar", 0); len(hits) != 1 {
		t.Errorf("after deleting session b: %+v", hits)
	}
}

func TestPreview(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"short", "short"},
		{"01234567", "01234567"},
		{"0123456789ab", "01234567… [12 bytes]"},
		{"0123456é9ab", "0123456… [12 bytes]"}, // é is bytes 7-8: cut before it
	} {
		if got := Preview(c.in, 8); got != c.want {
			t.Errorf("Preview(%q, 8) = %q, want %q", c.in, got, c.want)
		}
	}
}

// oldStore opens a database at the schema just before the migration
// named before, as the previous godwit left it.
func oldStore(t *testing.T, path, before string) *Store {
	t.Helper()
	ctx := context.Background()
	w, err := sql.Open("sqlite", path+"?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	d := newDB(w)
	s := &Store{w: d, r: d, now: fakeClock(), log: slog.New(slog.DiscardHandler)}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if strings.HasSuffix(m.name, "_"+before+".sql") {
			break
		}
		if err := s.apply(ctx, m, len(ms)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// oldMessageText is what the previous store indexed a message by: its
// tool results' contents too.
func oldMessageText(m llm.Message) string {
	var parts []string
	for _, p := range m.Parts {
		switch {
		case p.Kind == llm.PartText && p.Text != "":
			parts = append(parts, p.Text)
		case p.ToolCall != nil:
			parts = append(parts, p.ToolCall.Name+" "+string(p.ToolCall.Args))
		case p.ToolResult != nil && p.ToolResult.Content != "":
			parts = append(parts, p.ToolResult.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// TestOpensOldOutputs builds a database the way the schema before
// outputs and its code wrote it (every output four times) and checks
// that, migrated, every reader's answer is the same: the old rows stay
// as they were, and the readers take the text from where it is.
func TestOpensOldOutputs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "godwit.db")
	old := oldStore(t, path, "outputs")
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := old.w.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO sessions (id, workspace, created_at, updated_at) VALUES ('s1', '/w', 1, 1), ('s2', '/w', 1, 1)`)
	exec(`INSERT INTO turns (id, session_id, seq, status, started_at) VALUES (1, 's1', 1, 'done', 1), (2, 's2', 1, 'done', 1)`)
	outs := map[string]string{
		"c1": bigOutput(12_000),                       // deflated, paged, event preview cut
		"c2": "--- FAIL: TestAdd (0.00s)\nFAIL\n",     // short
		"c3": "a" + strings.Repeat("é", 2048) + "xyz", // preview cut inside a character by the old code: kept inline
	}
	msgID := 0
	// What the previous store's readers answered, by construction.
	var wantOutputs, wantEvents []string
	var wantMsgs []llm.Message
	for _, sess := range []string{"s1", "s2"} {
		turn := map[string]int{"s1": 1, "s2": 2}[sess]
		for _, id := range []string{"c1", "c2", "c3"} {
			out := outs[id]
			exec(`INSERT INTO tool_calls (session_id, turn_id, call_id, name, args, output, started_at) VALUES (?, ?, ?, 'shell_exec', '{}', ?, 5)`, sess, turn, id, out)
			wantOutputs = append(wantOutputs, out)
			preview := out
			if len(out) > 4096 {
				preview = out[:4096] + fmt.Sprintf("… [%d bytes]", len(out)) // the old limitText
			}
			exec(`INSERT INTO events (session_id, turn_id, type, at, data) VALUES (?, ?, 'tool.finished', 6, ?)`, sess, turn, string(toolEvent(id, preview)))
			wantEvents = append(wantEvents, string(toolEvent(id, preview)))
			for _, m := range []llm.Message{
				{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("running " + id), {Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: "shell_exec", Args: json.RawMessage(`{"command": "go test"}`)}}}},
				{Role: llm.RoleTool, Parts: []llm.Part{{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: id, Content: out, IsError: id == "c2"}}}},
			} {
				msgID++
				body, _ := json.Marshal(m)
				exec(`INSERT INTO messages (id, session_id, turn_id, segment, role, body, created_at) VALUES (?, ?, ?, 1, ?, ?, 7)`, msgID, sess, turn, string(m.Role), string(body))
				exec(`INSERT INTO search_fts (rowid, body, session) VALUES (? * 4 + 2, ?, ?)`, msgID, oldMessageText(m), sess)
				wantMsgs = append(wantMsgs, m)
			}
		}
		exec(`INSERT INTO pages (session_id, segment, kind, tags, summary, text, created_at) VALUES (?, 1, 'tool_output', '["shell_exec","c1"]', 'summary of c1', ?, 8)`, sess, outs["c1"])
		exec(`INSERT INTO pages (session_id, segment, kind, tags, summary, text, created_at) VALUES (?, 1, 'notes', '[]', 'a page of its own', 'not an output: quokka', 8)`, sess)
	}
	old.w.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hits := map[string][]string{}
	var gotOutputs, gotEvents []string
	var gotMsgs []llm.Message
	for _, sess := range []string{"s1", "s2"} {
		tcs, err := s.ToolCalls(ctx, sess)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range tcs {
			gotOutputs = append(gotOutputs, tc.Output)
		}
		ms, err := s.Messages(ctx, sess, -1)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			gotMsgs = append(gotMsgs, m.Message)
		}
		evs, err := s.Events(ctx, sess)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			gotEvents = append(gotEvents, string(e.Data))
		}
		for _, q := range []string{"zanzibar", "TestAdd", "quokka", "running"} {
			hs, err := s.In("/w").Search(ctx, sess, q, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hs {
				hits[sess+" "+q] = append(hits[sess+" "+q], h.Kind)
			}
		}
	}
	if fmt.Sprint(wantOutputs) != fmt.Sprint(gotOutputs) {
		t.Error("tool call outputs differ after migrating")
	}
	if len(gotMsgs) != len(wantMsgs) {
		t.Fatalf("%d messages after migrating, want %d", len(gotMsgs), len(wantMsgs))
	}
	for i := range wantMsgs {
		w, _ := json.Marshal(wantMsgs[i])
		g, _ := json.Marshal(gotMsgs[i])
		if string(w) != string(g) {
			t.Errorf("message %d differs:\n%.200s\n%.200s", i, w, g)
		}
	}
	if len(gotEvents) != len(wantEvents) {
		t.Fatalf("%d events after migrating, want %d", len(gotEvents), len(wantEvents))
	}
	for i := range wantEvents {
		if wantEvents[i] != gotEvents[i] {
			t.Errorf("event %d differs:\n%.200s\n%.200s", i, wantEvents[i], gotEvents[i])
		}
	}
	for i, want := range []string{outs["c1"], "not an output: quokka", outs["c1"], "not an output: quokka"} {
		p, err := s.Page(ctx, fmt.Sprintf("p%d", i+1))
		if err != nil || p.Text != want {
			t.Errorf("page p%d: %v, text equal %v", i+1, err, p.Text == want)
		}
	}
	// Search finds what it found before: a page and the message that
	// hold the output.
	want := map[string][]string{
		"s1 zanzibar": {"message", "page"}, "s1 TestAdd": {"message"}, "s1 quokka": {"page"}, "s1 running": {"message", "message", "message"},
	}
	for k, w := range want {
		got := hits[k]
		sort.Strings(got)
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("Search %s = %v, want %v", k, got, w)
		}
	}
}

// TestDropTokenCounts: a database that kept token counts loses the
// table and keeps everything else.
func TestDropTokenCounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "godwit.db")
	s := oldStore(t, path, "drop_token_counts")
	if _, err := s.w.ExecContext(ctx, `INSERT INTO token_counts VALUES ('o200k_base', 1, 10)`); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSession(ctx, Session{ID: "keep"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	var n int
	if err := s2.w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'token_counts'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("token_counts still there (%d, %v)", n, err)
	}
	if _, err := s2.Session(ctx, "keep"); err != nil {
		t.Errorf("session lost: %v", err)
	}
}

func TestSearchTextDropsLineNumbers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"plain\ntext", "plain\ntext"},
		{"1\tpackage main\n2\t\n  10\tfunc main() {}\n", "package main\n\nfunc main() {}\n"},
		{"no tab 12 here\n12\tyes\n", "no tab 12 here\nyes\n"},
		{"port 8080\t open", "port 8080\t open"},
		{"8080\topen", "open"},
	} {
		if got := searchText(c.in); got != c.want {
			t.Errorf("searchText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestIDList(t *testing.T) {
	t.Parallel()
	for _, ids := range [][]int64{{}, {0}, {1, 0, 42}, {1 << 40}} {
		got, err := parseIDList(idList(ids))
		if err != nil || fmt.Sprint(got) != fmt.Sprint(ids) {
			t.Errorf("parseIDList(idList(%v)) = %v, %v", ids, got, err)
		}
	}
	for _, bad := range []string{"", "[", "[1,x]", "1,2"} {
		if _, err := parseIDList(bad); err == nil {
			t.Errorf("parseIDList(%q) succeeded", bad)
		}
	}
}

// TestOutputPageDoc: a page whose text is a stored output is read whole
// as a memory document, and search_memory's archive search finds it by
// the output's words, once, its text cut at MaxDocText characters.
func TestOutputPageDoc(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		out  string
	}{
		{"short", "ok  \tzanzibar\t0.01s\n"},
		{"long, deflated", "zanzibar\n" + strings.Repeat("héllo wörld ✓\n", 2000)},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := openTest(t)
			sess := newSession(t, s, "")
			recordOutput(t, s, sess.ID, "c1", c.out)
			if n := count(t, s, `SELECT count(*) FROM pages WHERE output_id IS NOT NULL AND text = ''`); n != 1 {
				t.Fatalf("%d pages refer to the output, want 1", n)
			}
			whole := "[paged out]\n" + c.out
			doc, err := s.In("/w").MemoryDoc(ctx, "p1")
			if err != nil || doc.Text != whole || doc.Kind != MemoryPage || doc.SessionID != sess.ID || doc.Segment != 1 {
				t.Errorf("MemoryDoc(p1) = %v, %.80q; want the summary and the output", err, doc.Text)
			}
			hits, err := s.In("/w").SearchArchive(ctx, "zanzibar c1", 10)
			if err != nil || len(hits) != 1 || hits[0].ID != "p1" || !strings.Contains(hits[0].Snippet, "zanzibar") {
				t.Fatalf("SearchArchive = %+v, %v; want page p1 once", hits, err)
			}
			want := []rune(whole)
			if len(want) > MaxDocText {
				want = want[:MaxDocText]
			}
			if hits[0].Text != string(want) {
				t.Errorf("hit text: %d characters, %.80q; want the first %d of the document", utf8.RuneCountInString(hits[0].Text), hits[0].Text, len(want))
			}
			if hits, err := s.In("/elsewhere").SearchArchive(ctx, "zanzibar", 10); err != nil || len(hits) != 0 {
				t.Errorf("SearchArchive of another workspace = %+v, %v", hits, err)
			}
		})
	}
}

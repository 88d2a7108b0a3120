package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// world is a store holding two past sessions and a project memory file.
type world struct {
	st        *store.Store
	ws        string
	sessA     string
	sessB     string
	handoffID string // the search id of session A's handoff
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	st := storetest.OpenAt(t, filepath.Join(dir, "godwit.db"), store.WithClock(func() time.Time {
		return time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	}))
	w := &world{st: st, ws: filepath.Join(dir, "ws"), sessA: "sessiona", sessB: "sessionb"}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{w.sessA, w.sessB} {
		must(st.CreateSession(ctx, store.Session{ID: id, Workspace: w.ws}))
		must(st.StartSegment(ctx, id, 1, ""))
	}
	_, err := st.AddDecision(ctx, store.Decision{SessionID: w.sessA, Source: "user", Text: "Always use tabs for indentation in Go files."})
	must(err)
	_, err = st.AddDecision(ctx, store.Decision{SessionID: w.sessA, Source: "user", Text: "Park the car in lot B."})
	must(err)
	_, err = st.AddDecision(ctx, store.Decision{SessionID: w.sessB, Source: "user", Text: "Never push to main without review."})
	must(err)
	must(st.EndSegment(ctx, w.sessA, 1, "## Current task\nMigrate the billing service to postgres.", 10))
	segs, err := st.Segments(ctx, w.sessA)
	must(err)
	_ = segs
	_, err = st.PutPage(ctx, store.Page{SessionID: w.sessA, Segment: 1, Kind: "tool_output", Text: "--- FAIL: TestInvoice (0.01s)\ninvoice_test.go:12: want 3"})
	must(err)
	_, err = st.AppendMessage(ctx, w.sessB, 0, 1, llm.UserText("should we use postgres or sqlite for billing?"))
	must(err)
	write(t, filepath.Join(w.ws, ".godwit/memory.md"), "# Infra\nThe staging database is at db.internal:5432.")
	NewSource(SourceOptions{Workspace: w.ws, Store: st}).Texts(ctx)
	hits, err := st.In(w.ws).SearchArchive(ctx, "billing", 5)
	must(err)
	for _, h := range hits {
		if h.Kind == store.MemoryHandoff {
			w.handoffID = h.ID
		}
	}
	return w
}

func ids(rs []Result) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Kind+":"+r.Snippet)
	}
	return strings.Join(out, " | ")
}

func TestSearchKeywords(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s, err := NewSearcher(SearchOptions{Store: w.st, Workspace: w.ws})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query string
		want  []string // kind:snippet-substring, in order
	}{
		{"tabs indentation", []string{"decision:Always use tabs"}},
		{"postgres", []string{"handoff:Migrate the billing service to postgres"}}, // the message is not memory
		{"TestInvoice", []string{"page:FAIL: TestInvoice"}},
		{"staging database", []string{"memory:The staging database is at db.internal"}},
		{"review push", []string{"decision:Never push to main"}},
		{"automobile", nil},
		{"  ", nil},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			got, err := s.Search(context.Background(), tc.query, 8)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d results (%s), want %d", len(got), ids(got), len(tc.want))
			}
			for i, w := range tc.want {
				kind, snip, _ := strings.Cut(w, ":")
				if got[i].Kind != kind || !strings.Contains(got[i].Snippet, snip) || got[i].Via[0] != "keywords" {
					t.Errorf("result %d = %s %q, want %s %q", i, got[i].Kind, got[i].Snippet, kind, snip)
				}
			}
		})
	}
}

// fakeEmbeddings is an OpenAI-compatible /embeddings endpoint returning
// deterministic bag-of-concepts vectors: synonyms share a dimension, so
// "automobile" is near "car" without sharing a word.
type fakeEmbeddings struct {
	mu     sync.Mutex
	inputs int // texts embedded so far
	calls  int
	fail   bool
}

// concepts have dimensions of their own; other words hash into the rest.
var concepts = map[string]int{"automobile": 0, "vehicle": 0, "car": 0, "parking": 1, "park": 1}

func embedFake(text string) []float64 {
	v := make([]float64, 256)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		w = strings.Trim(w, ".,:;!?#")
		if c, ok := concepts[w]; ok {
			v[c]++
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[2+h.Sum32()%254]++
	}
	return v
}

func (f *fakeEmbeddings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input []string `json:"input"`
		Model string   `json:"model"`
	}
	if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "fake-embed" || r.Header.Get("Authorization") != "Bearer k" {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.calls++
	f.inputs += len(req.Input)
	fail := f.fail
	f.mu.Unlock()
	if fail {
		http.Error(w, `{"error":{"message":"down"}}`, http.StatusInternalServerError)
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	}
	resp := struct {
		Object string         `json:"object"`
		Data   []item         `json:"data"`
		Model  string         `json:"model"`
		Usage  map[string]int `json:"usage"`
	}{Object: "list", Model: req.Model, Usage: map[string]int{"prompt_tokens": 1, "total_tokens": 1}}
	// Answer in reverse order: the client must place vectors by index.
	for i := len(req.Input) - 1; i >= 0; i-- {
		resp.Data = append(resp.Data, item{"embedding", i, embedFake(req.Input[i])})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func (f *fakeEmbeddings) counts() (calls, inputs int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls, f.inputs
}

func TestSearchEmbeddings(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	fake := &fakeEmbeddings{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	emb, err := NewEmbedder(EmbedderOptions{BaseURL: srv.URL + "/v1", Model: "fake-embed", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSearcher(SearchOptions{Store: w.st, Workspace: w.ws, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// No shared word: only the embeddings find it.
	got, err := s.Search(ctx, "automobile", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || !strings.Contains(got[0].Text, "Park the car") || strings.Join(got[0].Via, ",") != "embeddings" {
		t.Fatalf("automobile: %s", ids(got))
	}
	_, inputs := fake.counts()
	// The query, 3 decisions, 1 handoff and 1 memory entry.
	if inputs != 6 {
		t.Errorf("first search embedded %d texts, want 6", inputs)
	}

	// A keyword hit found by both rankings fuses above either alone.
	got, err = s.Search(ctx, "tabs indentation", 3)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got[0].Text, "tabs") || strings.Join(got[0].Via, ",") != "keywords,embeddings" {
		t.Errorf("tabs: first is %q via %v", got[0].Text, got[0].Via)
	}

	// Everything is cached now: the same search embeds nothing.
	callsBefore, inputsBefore := fake.counts()
	if _, err := s.Search(ctx, "automobile", 3); err != nil {
		t.Fatal(err)
	}
	if calls, inputs := fake.counts(); calls != callsBefore || inputs != inputsBefore {
		t.Errorf("a repeated search called the endpoint %d more times (%d texts)", calls-callsBefore, inputs-inputsBefore)
	}

	// A failing endpoint leaves the keywords.
	fake.mu.Lock()
	fake.fail = true
	fake.mu.Unlock()
	got, err = s.Search(ctx, "review push, but new words", 3)
	if err != nil {
		t.Fatalf("a failing endpoint failed the search: %v", err)
	}
	if len(got) != 1 || got[0].Kind != store.MemoryDecision {
		t.Errorf("with the endpoint down: %s", ids(got))
	}
}

func TestNewEmbedderErrors(t *testing.T) {
	t.Parallel()
	for _, o := range []EmbedderOptions{{BaseURL: "localhost:1234", Model: "m"}, {BaseURL: "http://x/v1"}} {
		if _, err := NewEmbedder(o); err == nil || !strings.Contains(err.Error(), "memory: embeddings") {
			t.Errorf("%+v: err = %v", o, err)
		}
	}
}

func TestFuse(t *testing.T) {
	t.Parallel()
	h := func(id string) store.MemoryHit { return store.MemoryHit{ID: id, Text: "text of " + id} }
	lists := []ranking{
		{"keywords", []store.MemoryHit{h("a"), h("b"), h("c")}},
		{"keywords", []store.MemoryHit{h("d")}},
		{"embeddings", []store.MemoryHit{h("c"), h("e"), h("a")}},
	}
	got := fuse(lists, 4)
	var order []string
	for _, r := range got {
		order = append(order, r.ID)
	}
	// a: 1/61+1/63; c: 1/63+1/61 (tie, by id); d: 1/61; then b: 1/62 = e: 1/62 (by id), cut at 4.
	if strings.Join(order, ",") != "a,c,d,b" {
		t.Errorf("order = %v", order)
	}
	if got[0].Snippet != "text of a" {
		t.Errorf("snippet fallback = %q", got[0].Snippet)
	}
}

func TestSearchTool(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s, err := NewSearcher(SearchOptions{Store: w.st, Workspace: w.ws})
	if err != nil {
		t.Fatal(err)
	}
	st := NewSearchTool(s)
	ctx := tool.WithSession(context.Background(), tool.Session{ID: w.sessA})
	run := func(args string) (string, error) {
		res, err := st.Run(ctx, json.RawMessage(args))
		return res.Content, err
	}
	out, err := run(`{"query":"billing postgres"}`)
	if err != nil {
		t.Fatal(err)
	}
	want := w.handoffID + " (handoff ending segment 1, this session): ## Current task Migrate the billing service to postgres.\nPass an id as the query for the whole text."
	if out != want {
		t.Errorf("search:\n%s\nwant\n%s", out, want)
	}
	out, err = run(`{"query":"review"}`)
	if err != nil || !strings.Contains(out, "(decision D1, 2025-03-01): Never push") {
		t.Errorf("other session: %q, %v", out, err)
	}
	out, err = run(`{"query":"` + w.handoffID + `"}`)
	if err != nil || out != "[handoff ending segment 1, this session]\n## Current task\nMigrate the billing service to postgres." {
		t.Errorf("by id: %q, %v", out, err)
	}
	out, err = run(`{"query":"staging"}`)
	if err != nil || !strings.Contains(out, "(project memory of "+w.ws+", 2025-03-01): # Infra The staging database") {
		t.Errorf("memory entry: %q, %v", out, err)
	}
	if out, err := run(`{"query":"nothing matches this"}`); err != nil || out != `no matches in long-term memory for "nothing matches this"` {
		t.Errorf("no match: %q, %v", out, err)
	}
	for _, tc := range []struct{ args, code string }{{`{}`, tool.CodeBadArgs}, {`{"query":"d999"}`, tool.CodeNotFound}} {
		_, err := run(tc.args)
		var te *tool.ToolError
		if !errors.As(err, &te) || te.Code != tc.code {
			t.Errorf("%s: err = %v, want %s", tc.args, err, tc.code)
		}
	}
}

// search_memory finds a page whose text is a stored tool output by the
// output's words, and shows it whole by its id.
func TestSearchToolPagedOutput(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	out := "vet: zygote.go:3:2: unreachable code"
	if _, err := w.st.RecordToolCall(ctx, store.ToolCall{SessionID: w.sessA, CallID: "c1", Name: "shell", Output: out}); err != nil {
		t.Fatal(err)
	}
	id, err := w.st.PutPage(ctx, store.Page{SessionID: w.sessA, Segment: 1, Kind: "tool_output", Summary: "go vet ./...", Text: out})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSearcher(SearchOptions{Store: w.st, Workspace: w.ws})
	if err != nil {
		t.Fatal(err)
	}
	st := NewSearchTool(s)
	ctx = tool.WithSession(ctx, tool.Session{ID: w.sessA})
	res, err := st.Run(ctx, json.RawMessage(`{"query":"zygote"}`))
	if err != nil || !strings.HasPrefix(res.Content, id+" (") || !strings.Contains(res.Content, "zygote.go:3:2: unreachable code") {
		t.Errorf("search: %q, %v; want page %s with the output", res.Content, err, id)
	}
	res, err = st.Run(ctx, json.RawMessage(`{"query":"`+id+`"}`))
	if err != nil || !strings.HasSuffix(res.Content, "]\ngo vet ./...\n"+out) {
		t.Errorf("by id: %q, %v; want the summary and the output", res.Content, err)
	}
}

// search_memory finds nothing another workspace's sessions saw, by
// keywords, embeddings or any id a model could guess; the user's own
// memory stays every workspace's.
func TestSearchToolKeepsToTheWorkspace(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	other := filepath.Join(filepath.Dir(w.ws), "other")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.st.CreateSession(ctx, store.Session{ID: "elsewhere", Workspace: other}))
	must(w.st.StartSegment(ctx, "elsewhere", 1, ""))
	_, err := w.st.AddDecision(ctx, store.Decision{SessionID: "elsewhere", Source: "user", Text: "my billing password is ZZsecret"})
	must(err)
	must(w.st.EndSegment(ctx, "elsewhere", 1, "billing handoff ZZsecret", 5))
	_, err = w.st.PutPage(ctx, store.Page{SessionID: "elsewhere", Kind: "tool_output", Text: "billing ZZsecret"})
	must(err)
	// A page whose text is a stored tool output.
	_, err = w.st.RecordToolCall(ctx, store.ToolCall{SessionID: "elsewhere", CallID: "c1", Name: "shell", Output: "billing ZZsecret output"})
	must(err)
	_, err = w.st.PutPage(ctx, store.Page{SessionID: "elsewhere", Kind: "tool_output", Summary: "shell", Text: "billing ZZsecret output"})
	must(err)
	_, err = w.st.ReplaceMemoryEntries(ctx, "project", other, "file", []string{"billing ZZsecret"})
	must(err)
	s, err := NewSearcher(SearchOptions{Store: w.st, Workspace: w.ws, Embedder: localEmbedder{}})
	must(err)
	st := NewSearchTool(s)
	ctx = tool.WithSession(ctx, tool.Session{ID: w.sessA})
	queries := []string{"billing password", "ZZsecret", "billing"}
	for i := 1; i <= 12; i++ {
		for _, k := range "dehp" {
			queries = append(queries, fmt.Sprintf("%c%d", k, i))
		}
	}
	for _, q := range queries {
		raw, _ := json.Marshal(map[string]any{"query": q, "offset": 0})
		res, _ := st.Run(ctx, raw)
		if strings.Contains(res.Content, "ZZsecret") && q != "ZZsecret" {
			t.Errorf("search_memory %q: %q", q, res.Content)
		}
		if q == "ZZsecret" && res.Content != `no matches in long-term memory for "ZZsecret"` {
			t.Errorf("search_memory %q: %q", q, res.Content)
		}
	}
}

func TestSearchToolSpecSize(t *testing.T) {
	t.Parallel()
	for _, tl := range []tool.Tool{NewSearchTool(nil), NewSkillTool(SkillPlaces{})} {
		b, _ := json.Marshal(tl.Spec())
		if len(b) > 600 {
			t.Errorf("%s spec is %d bytes; keep model-facing text short", tl.Name(), len(b))
		}
		t.Logf("%s spec: %d bytes", tl.Name(), len(b))
	}
}

// A stalled embeddings server fails the call within the timeout, before
// its headers or after them, so search_memory falls back to keywords
// instead of hanging the turn.
func TestEmbedderStalledServer(t *testing.T) {
	t.Parallel()
	for _, headers := range []bool{false, true} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body) // so the server sees the client leave
			if headers {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"data":[`))
				w.(http.Flusher).Flush()
			}
			<-r.Context().Done()
		}))
		emb, err := NewEmbedder(EmbedderOptions{BaseURL: srv.URL + "/v1", Model: "m", Timeout: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a hang guard, not a timing assertion
		_, err = emb.Embed(ctx, []string{"x"})
		if err == nil || !strings.Contains(err.Error(), "the server did not answer within 50ms") || ctx.Err() != nil {
			t.Errorf("headers %v: err = %v", headers, err)
		}
		cancel()
		srv.Close()
	}
}

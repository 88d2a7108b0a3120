package window

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/godwit/godwit/llm"
)

// memCounts is CountStore in memory: what a database keeps between
// processes.
type memCounts struct {
	mu     sync.Mutex
	counts map[uint64]int
	asks   int
}

func (m *memCounts) TokenCounts(_ context.Context, _ string, hashes []uint64) (map[uint64]int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.asks++
	out := map[uint64]int{}
	for _, h := range hashes {
		if n, ok := m.counts[h]; ok {
			out[h] = n
		}
	}
	return out, nil
}

func (m *memCounts) PutTokenCounts(_ context.Context, _ string, counts map[uint64]int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.counts == nil {
		m.counts = map[uint64]int{}
	}
	for h, n := range counts {
		m.counts[h] = n
	}
	return nil
}

// TestKeptCountsSpareTheTokenizer: a process that resumes a session
// counts what an earlier one counted without loading the tokenizer; it
// loads it only when something new could change a decision.
func TestKeptCountsSpareTheTokenizer(t *testing.T) {
	ctx := context.Background()
	kept := &memCounts{}
	hist := []llm.Message{llm.UserText("read the file")}
	// The window is 32k: the first request of a turn may be estimated up
	// to High (~16k), later ones up to Low (~9.4k).
	for i := range 6 {
		hist = append(hist,
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c" + string(rune('a'+i)), Name: "file_read", Args: []byte(`{"path":"x.go"}`)}}}},
			llm.Message{Role: llm.RoleTool, Parts: []llm.Part{{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c" + string(rune('a'+i)), Content: strings.Repeat("func f() { return g(1, 2) }\n", 60+i)}}}},
			llm.AssistantText("done"))
	}
	// A working set that holds the whole history: only the request's
	// size could decide anything.
	b := Scaled(32_000)
	b.WorkingSet = 1 << 20
	process := func() (*Counter, *Window) {
		c := NewStoredCounter(nil, kept)
		return c, New(Options{System: "You are a test.", Budget: b, Counter: c, Pages: &MemPages{}})
	}
	// The first process counts everything exactly and keeps the counts.
	c1, w1 := process()
	c1.Count("load the tokenizer")
	first, err := w1.Assemble(ctx, Input{SessionID: "s", Segment: 1, Messages: hist, TurnStart: true})
	if err != nil || first.Estimated {
		t.Fatalf("first process: %v, estimated %v", err, first.Estimated)
	}
	if err := c1.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	// A second process sends the same history and a new prompt.
	c2, w2 := process()
	next := append(append([]llm.Message(nil), hist...), llm.UserText("and now the next one"))
	asm, err := w2.Assemble(ctx, Input{SessionID: "s", Segment: 1, Messages: next, TurnStart: true})
	if err != nil {
		t.Fatal(err)
	}
	if c2.Loaded() {
		t.Error("the tokenizer loaded for a prompt of a few words")
	}
	if !asm.Estimated || asm.Tokens < first.Tokens || asm.Tokens > first.Tokens+10 {
		t.Errorf("resumed request: %d tokens (estimated %v), the kept history %d", asm.Tokens, asm.Estimated, first.Tokens)
	}
	if kept.asks != 2 {
		t.Errorf("the store was asked %d times, want once a process", kept.asks)
	}
	// Nothing new: exact, and no tokenizer either.
	c3, w3 := process()
	if asm, _ := w3.Assemble(ctx, Input{SessionID: "s", Segment: 1, Messages: hist, TurnStart: true}); asm.Estimated || asm.Tokens != first.Tokens || c3.Loaded() {
		t.Errorf("same history again: %d tokens (want %d), estimated %v, tokenizer loaded %v", asm.Tokens, first.Tokens, asm.Estimated, c3.Loaded())
	}
	// A new output of a step, small enough to change nothing: estimated,
	// and not counted for its share either.
	c5, w5 := process()
	small := append(append([]llm.Message(nil), hist...),
		llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Kind: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "cy", Name: "file_read", Args: []byte(`{"path":"z.go"}`)}}}},
		llm.Message{Role: llm.RoleTool, Parts: []llm.Part{{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "cy", Content: strings.Repeat("x := 1\n", 150)}}}})
	if asm, _ := w5.Assemble(ctx, Input{SessionID: "s", Segment: 1, Messages: small}); !asm.Estimated || c5.Loaded() {
		t.Errorf("a 1 KB output far below the marks: estimated %v, tokenizer loaded %v", asm.Estimated, c5.Loaded())
	}
	// With no working set, the outputs answered from go, and their stubs
	// are counted; the newest read of x.go, which the turn in progress
	// works with, stays.
	c6 := NewStoredCounter(nil, kept)
	w6 := New(Options{System: "You are a test.", Budget: Scaled(32_000), Counter: c6, Pages: &MemPages{}})
	if asm, _ := w6.Assemble(ctx, Input{SessionID: "s", Segment: 1, Messages: small}); asm.Compacted == nil || asm.Compacted.Items != 5 || !c6.Loaded() {
		t.Errorf("no working set: compacted %+v, tokenizer loaded %v", asm.Compacted, c6.Loaded())
	}
}

func TestMarksDecided(t *testing.T) {
	m := marks{hard: 1000}
	for _, c := range []struct {
		known, fresh int
		want         bool
	}{
		{100, 300, true},  // far below hard: the size decides nothing
		{600, 400, true},  // up to hard
		{600, 500, false}, // may pass hard: a forced step frees what the exact size says
		{1100, 0, false},  // forced
	} {
		if got := m.decided(c.known, c.fresh); got != c.want {
			t.Errorf("decided(%d, %d) = %v, want %v", c.known, c.fresh, got, c.want)
		}
	}
}

func TestHashText(t *testing.T) {
	seen := map[uint64]string{}
	for _, s := range []string{"", "a", "b", "ab", "ba", "abcdefgh", "abcdefgi", "abcdefghi", strings.Repeat("x", 64), strings.Repeat("x", 65)} {
		h := HashText(s)
		if o, dup := seen[h]; dup {
			t.Errorf("HashText(%q) = HashText(%q)", s, o)
		}
		seen[h] = s
	}
	// Counts are kept by this hash in databases: it must not change.
	if got := HashText("func main() {}\n"); got != pinnedHash {
		t.Errorf("HashText changed: %#x, was %#x; kept counts would be lost (or wrong)", got, pinnedHash)
	}
}

const pinnedHash uint64 = 0xb03dac39fcca38ff

func BenchmarkHashText(b *testing.B) {
	s := strings.Repeat("a line of tool output that is fairly typical\n", 400)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		HashText(s)
	}
}

// TestCompactReadsElidedOutputsFromTheirPages: a resumed history holds a
// paged output without its text; stubbing it further reads the page.
func TestCompactReadsElidedOutputsFromTheirPages(t *testing.T) {
	ctx := context.Background()
	pages := &MemPages{}
	w := New(Options{System: "s", Budget: Scaled(32_000), Pages: pages})
	raw := strings.Repeat("line of output\n", 40) + "error: it broke\n"
	call := llm.ToolCall{ID: "c1", Name: "shell_exec", Args: []byte(`{"command":"make"}`)}
	id, _ := pages.PutPage(ctx, Page{SessionID: "s", Segment: 1, Text: raw})
	st := &segState{segment: 1, shown: map[string]Shown{"c1": {CallID: "c1", Level: LevelSummary, PageID: id, Text: Summary(call, raw, id)}}}
	msgs := []llm.Message{
		{Role: llm.RoleAssistant, Parts: []llm.Part{{Kind: llm.PartToolCall, ToolCall: &call}}},
		{Role: llm.RoleTool, Parts: []llm.Part{{Kind: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c1"}}}}, // elided
	}
	res, err := w.compact(ctx, Input{SessionID: "s", Segment: 1}, st, msgs, plan{reason: ReasonBudget, ids: []string{"c1"}, need: 1 << 20, stub: map[string]bool{}}, &[]SummaryCall{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := st.shown["c1"].Text, Stub(call, raw, id, w.count(raw)); res.Items != 1 || got != want {
		t.Errorf("stub = %q (%d items), want %q", got, res.Items, want)
	}
}

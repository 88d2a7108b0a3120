package store

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/godwit/godwit/llm"
)

func TestReplaceMemoryEntries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	steps := []struct {
		texts       []string
		wantChanged bool
	}{
		{[]string{"alpha one", "beta two"}, true},
		{[]string{"alpha one", "beta two"}, false}, // same: no write
		{[]string{"gamma three"}, true},
		{nil, true},
		{nil, false},
	}
	for i, st := range steps {
		changed, err := s.ReplaceMemoryEntries(ctx, "project", "/ws", "file", st.texts)
		if err != nil {
			t.Fatal(err)
		}
		if changed != st.wantChanged {
			t.Errorf("step %d: changed = %v, want %v", i, changed, st.wantChanged)
		}
		es, err := s.MemoryEntries(ctx, "project", "/ws", "file")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range es {
			got = append(got, e.Text)
		}
		if !slices.Equal(got, st.texts) {
			t.Errorf("step %d: entries = %q, want %q", i, got, st.texts)
		}
	}
	// Replaced entries leave the index with their rows.
	for q, want := range map[string]int{"alpha": 0, "gamma": 0} {
		hits, err := s.In("").SearchMemory(ctx, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != want {
			t.Errorf("search %q: %d hits after replacement, want %d", q, len(hits), want)
		}
	}
	if _, err := s.ReplaceMemoryEntries(ctx, "team", "", "file", nil); err == nil {
		t.Error("a bad scope was accepted")
	}
}

func TestMemorySearchKinds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	if err := s.CreateSession(ctx, Session{ID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.StartSegment(ctx, "s1", 1, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddDecision(ctx, Decision{SessionID: "s1", Source: "user", Text: "use the zebra codec"}); err != nil {
		t.Fatal(err)
	}
	if err := s.EndSegment(ctx, "s1", 1, "handoff about the zebra codec", 5); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(ctx, "s1", 0, 1, llm.UserText("zebra in a message")); err != nil {
		t.Fatal(err)
	}
	pid, err := s.PutPage(ctx, Page{SessionID: "s1", Kind: "tool_output", Text: "zebra output"})
	if err != nil {
		t.Fatal(err)
	}
	mem, err := s.In("").SearchMemory(ctx, "zebra", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(mem) != 1 || mem[0].Kind != MemoryDecision || mem[0].Seq != 1 || mem[0].SessionID != "s1" {
		t.Errorf("memory hits = %+v", mem)
	}
	arch, err := s.In("").SearchArchive(ctx, "zebra", 10)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, h := range arch {
		kinds[h.Kind] = true
	}
	if len(arch) != 2 || !kinds[MemoryHandoff] || !kinds[MemoryPage] {
		t.Errorf("archive hits = %+v; want the handoff and the page, not the message", arch)
	}
	doc, err := s.In("").MemoryDoc(ctx, pid)
	if err != nil || doc.Text != "\nzebra output" || doc.Detail != "tool_output" {
		t.Errorf("doc %s = %+v, %v", pid, doc, err)
	}
	for _, bad := range []string{"", "x1", "d", "d0", "dx", "d999"} {
		if _, err := s.In("").MemoryDoc(ctx, bad); !errors.Is(err, ErrNotFound) {
			t.Errorf("MemoryDoc(%q) = %v, want ErrNotFound", bad, err)
		}
	}
	corpus, err := s.In("").MemoryCorpus(ctx, 10)
	if err != nil || len(corpus) != 2 {
		t.Errorf("corpus = %+v, %v; want the decision and the handoff", corpus, err)
	}
}

func TestVectors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	in := map[string][]float32{"h1": {0.6, -0.8}, "h2": {1, 0}}
	if err := s.PutVectors(ctx, "m", in); err != nil {
		t.Fatal(err)
	}
	// A second put of a cached hash keeps the first vector.
	if err := s.PutVectors(ctx, "m", map[string][]float32{"h1": {9, 9}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Vectors(ctx, "m", []string{"h1", "h2", "h3"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !slices.Equal(got["h1"], in["h1"]) || !slices.Equal(got["h2"], in["h2"]) {
		t.Errorf("vectors = %v", got)
	}
	if other, _ := s.Vectors(ctx, "other-model", []string{"h1"}); len(other) != 0 {
		t.Errorf("vectors leaked across models: %v", other)
	}
	if err := s.PutVectors(ctx, "", in); err == nil {
		t.Error("an empty model was accepted")
	}
}

package memory

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/store/storetest"
)

// BenchmarkSourceLoad is the work at each segment start: rules from a
// repository four folders deep, two memory files, ten skills.
func BenchmarkSourceLoad(b *testing.B) {
	files := map[string]string{
		"repo/.git/":                     "",
		"repo/AGENTS.md":                 strings.Repeat("Rule line.\n", 200),
		"repo/a/AGENTS.md":               "a rules",
		"repo/a/b/CLAUDE.md":             "b rules",
		"home/AGENTS.md":                 "user rules",
		"home/memory.md":                 "user memory",
		"repo/a/b/c/.godwit/memory.md":   strings.Repeat("Memory line.\n", 100),
		"repo/a/b/c/.godwit/skills/x/":   "",
		"repo/a/b/c/.claude/skills/y/":   "",
		"repo/a/b/c/.agents/skills/any/": "",
	}
	for i := range 10 {
		files[fmt.Sprintf("home/skills/s%d/SKILL.md", i)] = skillFile(fmt.Sprintf("s%d", i), "Does a thing.", "body")
	}
	root := tree(b, files)
	src := NewSource(SourceOptions{Workspace: filepath.Join(root, "repo/a/b/c"), Home: filepath.Join(root, "home")})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if p := src.Texts(ctx); len(p) != 3 {
			b.Fatalf("parts = %s", parts(p))
		}
	}
}

// localEmbedder embeds in process with the fake's vectors.
type localEmbedder struct{}

func (localEmbedder) Model() string { return "local" }
func (localEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = normalize64(embedFake(t))
	}
	return out, nil
}

// BenchmarkSearch searches a store of 40 past sessions (2,000 decisions,
// 200 handoffs, 800 pages), by keywords and fused with embeddings (all
// vectors cached, as after the first search).
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	st := storetest.Open(b)
	words := strings.Fields("retry backoff parser cache window budget token billing invoice postgres migration deploy staging review tabs lint docs flaky timeout config")
	for s := range 40 {
		id := fmt.Sprintf("sess%02d", s)
		if err := st.CreateSession(ctx, store.Session{ID: id}); err != nil {
			b.Fatal(err)
		}
		for seg := 1; seg <= 5; seg++ {
			st.StartSegment(ctx, id, seg, "")
			st.EndSegment(ctx, id, seg, fmt.Sprintf("## Current task\nWork on the %s of the %s, segment %d.", words[(s+seg)%len(words)], words[(s*3+seg)%len(words)], seg), 100)
		}
		for d := range 50 {
			st.AddDecision(ctx, store.Decision{SessionID: id, Source: "user", Text: fmt.Sprintf("Keep the %s %s as it is (%d).", words[(s+d)%len(words)], words[(d*7)%len(words)], d)})
		}
		for p := range 20 {
			st.PutPage(ctx, store.Page{SessionID: id, Kind: "tool_output", Text: strings.Repeat(words[(s+p)%len(words)]+" output line\n", 200)})
		}
	}
	for _, tc := range []struct {
		name string
		emb  Embedder
	}{{"keywords", nil}, {"fused", localEmbedder{}}} {
		s, err := NewSearcher(SearchOptions{Store: st, Embedder: tc.emb})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Search(ctx, "billing invoice retry", 8); err != nil { // warms the vector cache
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := s.Search(ctx, "billing invoice retry", 8)
				if err != nil || len(res) != 8 {
					b.Fatalf("%d results, %v", len(res), err)
				}
			}
		})
	}
}

package memory

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"

	"github.com/godwit/godwit/internal/store"
)

// rrfK is the constant of reciprocal rank fusion: a document's score is
// the sum over rankings of 1/(rrfK + rank). 60 is the value of the paper
// (Cormack et al., 2009) and of most systems since.
const rrfK = 60

// Embedding work per search: the newest decisions and handoffs ranked by
// embeddings besides the keyword hits, new texts embedded at most (the
// rest wait for later searches), and per request.
const (
	corpus           = 300
	maxNewEmbeddings = 256
	embedBatch       = 64
)

// SearchOptions configure a Searcher.
type SearchOptions struct {
	Store *store.Store
	// Workspace is the root whose sessions' records are searched, with
	// the user's memory entries: another workspace's are never found.
	Workspace string
	// Embedder, when set, adds a ranking by embeddings; nil searches by
	// keywords only.
	Embedder Embedder
	Logger   *slog.Logger
}

// Searcher searches long-term memory: memory files, and the Decisions
// entries, handoffs and pages of the workspace's sessions. It is safe
// for concurrent use.
type Searcher struct {
	opts SearchOptions
	in   store.Scope
}

// NewSearcher returns a Searcher.
func NewSearcher(o SearchOptions) (*Searcher, error) {
	if o.Store == nil {
		return nil, errors.New("memory: a Searcher needs a store")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Searcher{opts: o, in: o.Store.In(o.Workspace)}, nil
}

// Result is one fused search result.
type Result struct {
	store.MemoryHit
	// Fused is the reciprocal-rank score, higher is better.
	Fused float64
	// Via names the rankings that found it: "keywords", "embeddings".
	Via []string
}

// Search returns at most limit documents (8 when limit <= 0), best first:
// BM25 over the memory entries and decisions, BM25 over pages and
// handoffs, and, with an Embedder, cosine similarity over the keyword hits
// and the recent corpus, fused by reciprocal rank. When the embeddings
// endpoint fails the search goes on with keywords, and the failure is
// logged.
func (s *Searcher) Search(ctx context.Context, query string, limit int) ([]Result, error) {
	if limit <= 0 {
		limit = 8
	}
	depth := max(3*limit, 20)
	mem, err := s.in.SearchMemory(ctx, query, depth)
	if err != nil {
		return nil, err
	}
	arch, err := s.in.SearchArchive(ctx, query, depth)
	if err != nil {
		return nil, err
	}
	lists := []ranking{{"keywords", mem}, {"keywords", arch}}
	if s.opts.Embedder != nil && strings.TrimSpace(query) != "" {
		dense, err := s.dense(ctx, query, append(append([]store.MemoryHit(nil), mem...), arch...), depth)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			s.opts.Logger.Warn("memory: embeddings search failed; keywords only", "err", err)
		} else {
			lists = append(lists, ranking{"embeddings", dense})
		}
	}
	return fuse(lists, limit), nil
}

// ranking is one ordered list of hits, best first.
type ranking struct {
	via  string
	hits []store.MemoryHit
}

// fuse merges rankings by reciprocal rank; ties go to the id, so the
// order is stable.
func fuse(lists []ranking, limit int) []Result {
	byID := map[string]*Result{}
	var order []*Result
	for _, l := range lists {
		for rank, h := range l.hits {
			r := byID[h.ID]
			if r == nil {
				r = &Result{MemoryHit: h}
				byID[h.ID] = r
				order = append(order, r)
			}
			if r.Snippet == "" {
				r.Snippet = h.Snippet
			}
			r.Fused += 1 / float64(rrfK+rank+1)
			if !slices.Contains(r.Via, l.via) {
				r.Via = append(r.Via, l.via)
			}
		}
	}
	slices.SortStableFunc(order, func(a, b *Result) int {
		return cmp.Or(cmp.Compare(b.Fused, a.Fused), cmp.Compare(a.ID, b.ID))
	})
	out := make([]Result, 0, min(limit, len(order)))
	for _, r := range order[:min(limit, len(order))] {
		if r.Snippet == "" {
			r.Snippet = lead(r.Text, 200)
		}
		out = append(out, *r)
	}
	return out
}

// dense ranks the keyword hits and the recent corpus by cosine similarity
// to the query, best first, at most n; orthogonal or opposite ones are
// left out.
func (s *Searcher) dense(ctx context.Context, query string, hits []store.MemoryHit, n int) ([]store.MemoryHit, error) {
	corpus, err := s.in.MemoryCorpus(ctx, corpus)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var docs []store.MemoryHit
	for _, h := range append(hits, corpus...) {
		if seen[h.ID] || strings.TrimSpace(h.Text) == "" {
			continue
		}
		seen[h.ID] = true
		docs = append(docs, h)
	}
	texts := make([]string, 0, len(docs)+1)
	texts = append(texts, query)
	for _, d := range docs {
		texts = append(texts, d.Text)
	}
	vecs, err := s.vectors(ctx, texts)
	if err != nil {
		return nil, err
	}
	q, ok := vecs[hash([]byte(query))]
	if !ok {
		return nil, errors.New("memory: the query was not embedded")
	}
	type scored struct {
		h store.MemoryHit
		s float64
	}
	var ranked []scored
	for _, d := range docs {
		if v, ok := vecs[hash([]byte(d.Text))]; ok {
			if c := dot(q, v); c > 0 {
				ranked = append(ranked, scored{d, c})
			}
		}
	}
	slices.SortStableFunc(ranked, func(a, b scored) int { return cmp.Compare(b.s, a.s) })
	out := make([]store.MemoryHit, 0, min(n, len(ranked)))
	for _, r := range ranked[:min(n, len(ranked))] {
		out = append(out, r.h)
	}
	return out, nil
}

// vectors returns the vectors of texts by content hash: from the store's
// cache, else from the Embedder (at most maxNewEmbeddings new ones per
// call; the first text, the query, always), cached as they come.
func (s *Searcher) vectors(ctx context.Context, texts []string) (map[string][]float32, error) {
	e, st := s.opts.Embedder, s.opts.Store
	hashes := make([]string, len(texts))
	for i, t := range texts {
		hashes[i] = hash([]byte(t))
	}
	have, err := st.Vectors(ctx, e.Model(), hashes)
	if err != nil {
		return nil, err
	}
	var todo []int
	queued := map[string]bool{}
	for i, h := range hashes {
		if _, ok := have[h]; !ok && !queued[h] && len(todo) < maxNewEmbeddings {
			queued[h] = true
			todo = append(todo, i)
		}
	}
	for batch := range slices.Chunk(todo, embedBatch) {
		in := make([]string, len(batch))
		for j, i := range batch {
			in[j] = texts[i]
		}
		got, err := e.Embed(ctx, in)
		if err != nil {
			return nil, err
		}
		fresh := map[string][]float32{}
		for j, i := range batch {
			fresh[hashes[i]] = got[j]
			have[hashes[i]] = got[j]
		}
		if err := st.PutVectors(ctx, e.Model(), fresh); err != nil {
			return nil, err
		}
	}
	return have, nil
}

// lead is the start of text, whitespace folded, cut near n bytes.
func lead(text string, n int) string {
	s := strings.Join(strings.Fields(cutBytes(text, 4*n)), " ")
	if len(s) <= n {
		return s
	}
	return cutBytes(s, n) + "…"
}

package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Memory kinds of a MemoryHit.
const (
	MemoryDecision  = "decision"
	MemoryEntryKind = "memory"
	MemoryPage      = "page"
	MemoryHandoff   = "handoff"
)

// MaxDocText caps the text a MemoryHit carries (characters): enough for a
// snippet and for an embedding input; MemoryDoc returns the whole.
const MaxDocText = 8 << 10

// MemoryEntry is one unit of long-term memory.
type MemoryEntry struct {
	ID        int64
	Scope     string // "user" or "project"
	Workspace string // the project's directory for scope "project"
	Kind      string // "file": a chunk of a memory file
	Text      string
	SessionID string
	CreatedAt time.Time
}

func memoryEntries(ctx context.Context, db execer, scope, workspace, kind string) ([]MemoryEntry, error) {
	return list(ctx, db, "memory entries", scanRow[MemoryEntry], qMemoryEntries, scope, workspace, kind)
}

// ReplaceMemoryEntries makes texts, in order, the entries of one scope,
// workspace and kind, in one transaction. When they already are, it writes
// nothing and returns false.
func (s *Store) ReplaceMemoryEntries(ctx context.Context, scope, workspace, kind string, texts []string) (bool, error) {
	if scope != "user" && scope != "project" {
		return false, fmt.Errorf("store: replace memory entries: scope %q; use \"user\" or \"project\"", scope)
	}
	// Read on the writer: every session start compares, and a read on
	// the pool would open a second connection (a schema parse) in a run
	// that may read nothing else.
	old, err := memoryEntries(ctx, s.w, scope, workspace, kind)
	if err != nil {
		return false, err
	}
	same := len(old) == len(texts)
	for i := 0; same && i < len(old); i++ {
		same = old[i].Text == texts[i]
	}
	if same {
		return false, nil
	}
	now := s.now().UnixMilli()
	err = s.inTx(ctx, "replace memory entries", func(tx *txn) error {
		if _, err := tx.ExecContext(ctx, qDeleteMemoryEntries, scope, workspace, kind); err != nil {
			return err
		}
		for _, t := range texts {
			if _, err := tx.ExecContext(ctx, qAddMemoryEntry, scope, workspace, kind, t, now); err != nil {
				return err
			}
		}
		return nil
	})
	return err == nil, err
}

// MemoryHit is one document of long-term memory, as search finds it.
type MemoryHit struct {
	Kind string // MemoryDecision, MemoryEntryKind, MemoryPage or MemoryHandoff
	// ID names the document for MemoryDoc: "d12" (decision row 12), "e3"
	// (memory entry 3), "p42" (page 42, as recall knows it), "h7" (the
	// handoff of segment row 7).
	ID        string
	SessionID string
	// Seq is the decision's number in its ledger (D3) or the segment the
	// handoff ended.
	Seq        int
	Segment    int // of a page
	Superseded bool
	Scope      string // of a memory entry
	Workspace  string // of a memory entry
	Detail     string // a page's kind, a memory entry's kind
	At         time.Time
	// Text is the document, cut at MaxDocText by searches and whole from
	// MemoryDoc.
	Text    string
	Snippet string
	// Score is BM25 relevance, higher is better; comparable within one
	// result list only.
	Score float64
}

// SearchMemory ranks the Decisions entries of the workspace's sessions,
// its project memory entries and the user's against query with BM25,
// best first, at most limit (10 when limit <= 0). The query is read as
// Search reads it.
func (sc Scope) SearchMemory(ctx context.Context, query string, limit int) ([]MemoryHit, error) {
	words, terms := ftsQuery(query)
	if words == "" {
		return nil, nil
	}
	return sc.memorySearch(ctx, "search memory", qSearchMemory, "body : ("+words+")", terms, limit, map[int64]string{1: MemoryDecision, 2: MemoryEntryKind})
}

// SearchArchive ranks the pages and handoffs of the workspace's sessions
// against query with BM25, best first, at most limit (10 when limit <= 0);
// a page whose text is a stored output is found by the output's words.
func (sc Scope) SearchArchive(ctx context.Context, query string, limit int) ([]MemoryHit, error) {
	words, terms := ftsQuery(query)
	if words == "" {
		return nil, nil
	}
	return sc.memorySearch(ctx, "search archive", qSearchArchive, "body : ("+words+")", terms, limit, map[int64]string{1: MemoryPage, 3: MemoryHandoff})
}

func (sc Scope) memorySearch(ctx context.Context, op, query, match string, terms []string, limit int, kinds map[int64]string) ([]MemoryHit, error) {
	if limit <= 0 {
		limit = defaultHits
	}
	fs, err := list(ctx, sc.s.r, op, scanFound, query, match, limit, sc.workspace)
	if err != nil {
		return nil, err
	}
	hits := make([]MemoryHit, 0, len(fs))
	for _, f := range fs {
		h, err := sc.doc(ctx, kinds[f.kind], f.id, MaxDocText)
		if errors.Is(err, sql.ErrNoRows) {
			continue // deleted since the index was read
		}
		if err != nil {
			return nil, wrap(op, err)
		}
		h.Snippet = snippet(h.Text, terms)
		h.Score = -f.rank
		hits = append(hits, h)
	}
	return hits, nil
}

// MemoryDoc returns the whole document an id of a MemoryHit names, if
// it belongs to the workspace (or is the user's memory).
func (sc Scope) MemoryDoc(ctx context.Context, id string) (MemoryHit, error) {
	id = strings.TrimSpace(id)
	var kind string
	var n int64
	var err error
	for k, d := range docKinds {
		if rest, ok := strings.CutPrefix(id, d.letter); ok {
			kind = k
			n, err = strconv.ParseInt(rest, 10, 64)
		}
	}
	if kind == "" || err != nil || n <= 0 {
		return MemoryHit{}, notFound("no memory document %q; ids look like d12, e3, h7 or p42", id)
	}
	h, err := sc.doc(ctx, kind, n, math.MaxInt32)
	if errors.Is(err, sql.ErrNoRows) {
		return MemoryHit{}, notFound("no memory document %s", id)
	}
	if err != nil {
		return MemoryHit{}, wrap("memory doc "+id, err)
	}
	return h, nil
}

// MemoryCorpus returns the documents to rank by embeddings: every memory
// entry and the newest n decisions and n handoffs of the workspace, texts
// cut at MaxDocText. Pages are left to the keyword search: there are too
// many.
func (sc Scope) MemoryCorpus(ctx context.Context, n int) ([]MemoryHit, error) {
	var out []MemoryHit
	for _, q := range []struct {
		kind  string
		limit int
	}{{MemoryEntryKind, 10_000}, {MemoryDecision, n}, {MemoryHandoff, n}} {
		d := docKinds[q.kind]
		hs, err := list(ctx, sc.s.r, "memory corpus", func(r scanner) (MemoryHit, error) { return docRow(q.kind, r, MaxDocText) },
			d.query+d.scope+qNewest, MaxDocText, q.limit, sc.workspace)
		if err != nil {
			return nil, err
		}
		out = append(out, hs...)
	}
	return out, nil
}

// docKinds are the kinds of documents: the letter of their ids, the
// SELECT of docRow's columns (handoffs only of segments that have one)
// and what limits its rows to the workspace (?3): its sessions' rows,
// the user's memory entries and its own.
var docKinds = map[string]struct{ letter, query, scope string }{
	MemoryDecision:  {"d", qDocDecision, qSessionRowInScope},
	MemoryEntryKind: {"e", qDocEntry, qEntryInScope},
	MemoryPage:      {"p", qDocPage, qSessionRowInScope},
	MemoryHandoff:   {"h", qDocHandoffKept, qSessionRowInScope},
}

// doc reads one document of the workspace, its text cut at max
// characters.
func (sc Scope) doc(ctx context.Context, kind string, id int64, max int) (MemoryHit, error) {
	d, ok := docKinds[kind]
	if !ok {
		return MemoryHit{Kind: kind}, fmt.Errorf("memory index entry of unknown kind %q", kind)
	}
	return docRow(kind, sc.s.r.QueryRowContext(ctx, d.query+d.scope+qAndID, max, id, sc.workspace), max)
}

// docRow scans a row of a docKinds query that cut the text at max
// characters.
func docRow(kind string, r scanner, max int) (MemoryHit, error) {
	h := MemoryHit{Kind: kind}
	var id, at int64
	var seq, by int
	var o stored
	err := r.Scan(&id, &h.SessionID, &seq, &by, &h.Scope, &h.Workspace, &h.Detail, &at, &h.Text, &o.Size, &o.Packed)
	if err == nil && o.Packed != nil {
		// A page's output, deflated: SQL has the summary, the rest
		// follows it here, cut as substr cuts.
		n := -1 // all of it
		if max < o.Size/utf8.UTFMax {
			n = max * utf8.UTFMax // bytes enough for max characters
		}
		var out string
		if out, err = unpack(o.Packed, o.Size, n); err == nil {
			h.Text = cutRunes(h.Text+out, max)
		}
	}
	h.ID = docKinds[kind].letter + strconv.FormatInt(id, 10)
	h.At = fromMS(at)
	h.Superseded = by != 0
	if kind == MemoryPage {
		h.Segment = seq
	} else {
		h.Seq = seq
	}
	return h, err
}

// cutRunes returns s's first n characters.
func cutRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// Vectors returns the cached embedding vectors of model for the given
// content hashes; hashes not cached are absent from the map.
func (s *Store) Vectors(ctx context.Context, model string, hashes []string) (map[string][]float32, error) {
	type vec struct {
		hash string
		v    []float32
	}
	hs, err := json.Marshal(hashes)
	if err != nil {
		return nil, fmt.Errorf("store: vectors: %w", err)
	}
	vs, err := list(ctx, s.r, "vectors", func(r scanner) (vec, error) {
		var x vec
		var b []byte
		err := r.Scan(&x.hash, &b)
		x.v = decodeVector(b)
		return x, err
	}, qVectors, model, string(hs))
	out := make(map[string][]float32, len(vs))
	for _, x := range vs {
		out[x.hash] = x.v
	}
	return out, err
}

// PutVectors caches embedding vectors of model by content hash, in one
// transaction; a hash already cached keeps its vector.
func (s *Store) PutVectors(ctx context.Context, model string, vecs map[string][]float32) error {
	if model == "" {
		return errors.New("store: put vectors: empty model name; vectors are cached per embedding model")
	}
	now := s.now().UnixMilli()
	return s.inTx(ctx, "put vectors", func(tx *txn) error {
		for _, h := range slices.Sorted(maps.Keys(vecs)) {
			if _, err := tx.ExecContext(ctx, qPutVector, model, h, len(vecs[h]), encodeVector(vecs[h]), now); err != nil {
				return err
			}
		}
		return nil
	})
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

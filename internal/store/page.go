package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/godwit/godwit/llm"
)

// Page is context paged out of the window: the full text, kept and
// indexed, that a one-line stub replaced.
type Page struct {
	ID        string // "p42"; assigned by PutPage
	SessionID string
	Segment   int
	Kind      string // what it was: "tool_output", "file", "messages", ...
	Tags      []string
	Tokens    int
	From, To  time.Time // the time range the text covers
	Summary   string
	Text      string
}

// PutPage stores p, indexes its summary, text and tags, and returns its
// id ("p" and a number). p.ID must be empty. A page whose text is one of
// the session's tool outputs refers to it rather than holding a copy.
func (s *Store) PutPage(ctx context.Context, p Page) (string, error) {
	if p.ID != "" {
		return "", fmt.Errorf("store: put page: ID %q is set; PutPage assigns it, leave it empty", p.ID)
	}
	tags := p.Tags
	if tags == nil {
		tags = []string{}
	}
	tj, err := json.Marshal(tags)
	if err != nil {
		return "", fmt.Errorf("store: put page: encode tags: %w", err)
	}
	var id int64
	err = s.inTx(ctx, "put page", func(tx *txn) error {
		out, _, err := outputID(ctx, tx, p.SessionID, p.Text)
		if err != nil {
			return err
		}
		text := p.Text
		if out != 0 {
			text = ""
		}
		return tx.QueryRowContext(ctx, qPutPage, p.SessionID, p.Segment, p.Kind, string(tj), p.Tokens,
			ms(p.From), ms(p.To), p.Summary, text, s.now().UnixMilli(), null(out)).Scan(&id)
	})
	if err != nil {
		return "", err
	}
	return "p" + strconv.FormatInt(id, 10), nil
}

// Page returns the page with the given id ("p42"), of any session: the
// engine reads back the pages its window made. What a model names by id
// is read through a Scope. An id of another form is reported as not
// found, with the form expected.
func (s *Store) Page(ctx context.Context, id string) (Page, error) {
	return s.page(ctx, id, qPage)
}

// Page returns the page with the given id if a session of the workspace
// made it; another's is not found.
func (sc Scope) Page(ctx context.Context, id string) (Page, error) {
	return sc.s.page(ctx, id, qPageIn, sc.workspace)
}

func (s *Store) page(ctx context.Context, id, query string, args ...any) (Page, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(id), "p"), 10, 64)
	if !strings.HasPrefix(strings.TrimSpace(id), "p") || err != nil || n <= 0 {
		return Page{}, notFound("no page %q; page ids look like p42", id)
	}
	row, err := scanRow[struct {
		Page
		Out stored
	}](s.r.QueryRowContext(ctx, query, append([]any{n}, args...)...))
	if errors.Is(err, sql.ErrNoRows) {
		return Page{}, notFound("no page %s", id)
	}
	if err != nil {
		return Page{}, wrap("page "+id, err)
	}
	p := row.Page
	p.ID = "p" + p.ID // the row's number
	if p.Text, err = row.Out.textOr(p.Text); err != nil {
		return Page{}, fmt.Errorf("store: page %s: %w", id, err)
	}
	return p, nil
}

// Hit is one search result.
type Hit struct {
	Kind string // "page", "message" or "handoff"
	// ID names what was found: "p42" (a page, for Page), "m7" (message
	// id 7), "seg3" (the handoff that ended segment 3).
	ID        string
	SessionID string
	Segment   int
	Snippet   string
	// Score is BM25 relevance, higher is better; comparable within one
	// result list only.
	Score float64
}

// defaultHits is Search's limit when the caller gives none.
const defaultHits = 10

// maxTerms bounds how much work one query can ask for.
const maxTerms = 32

// found is an index hit: the kind of row (the rowid's low bits), its id
// and its rank.
type found struct {
	kind, id int64
	rank     float64
}

func scanFound(r scanner) (found, error) {
	var f found
	err := r.Scan(&f.kind, &f.id, &f.rank)
	return f, err
}

// Search ranks the pages, messages and segment handoffs of one session
// of the workspace ("" for each of its sessions) against query with
// FTS5's BM25, best first, at most limit hits (10 when limit <= 0). The query is free text from a user
// or a model: each word is matched as a quoted phrase (a trailing * makes
// it a prefix), any word may match, and rows matching more words, or rarer
// ones, rank higher. Operators and punctuation are taken literally, so no
// input is a syntax error; a query with no words returns no hits.
func (sc Scope) Search(ctx context.Context, sessionID, query string, limit int) ([]Hit, error) {
	s := sc.s
	words, terms := ftsQuery(query)
	if words == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = defaultHits
	}
	match := "body : (" + words + ")"
	if oneToken(sessionID) {
		// Narrows the search inside the index; the query checks the
		// session exactly either way.
		match = "session : " + phrase(sessionID) + " AND " + match
	}
	fs, err := list(ctx, s.r, "search", scanFound, qSearch, match, sessionID, limit, sc.workspace)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(fs))
	seen := map[string]bool{}
	for _, f := range fs {
		h, err := s.hit(ctx, f.kind, f.id, terms)
		if errors.Is(err, sql.ErrNoRows) {
			continue // deleted since the index was read
		}
		if err != nil {
			return nil, wrap("search", err)
		}
		if seen[h.ID] {
			continue // a page found by its summary and by its output
		}
		seen[h.ID] = true
		h.Score = -f.rank
		hits = append(hits, h)
	}
	return hits, nil
}

// hit fills in a search result from the row it points at.
func (s *Store) hit(ctx context.Context, kind, id int64, terms []string) (Hit, error) {
	var h Hit
	var text string
	var err error
	switch kind {
	case 0:
		// An output is shown as the page that keeps it, else as the
		// message that carried it.
		var o stored
		if err = s.r.QueryRowContext(ctx, qHitOutput, id).Scan(&h.SessionID, &o.Size, &o.Plain, &o.Packed); err != nil {
			return h, err
		}
		if text, err = o.textOr(""); err != nil {
			return h, fmt.Errorf("output %d: %w", id, err)
		}
		var at int64
		if err = s.r.QueryRowContext(ctx, qOutputPage, id).Scan(&at, &h.Segment); err == nil {
			h.Kind, h.ID = "page", "p"+strconv.FormatInt(at, 10)
		} else if errors.Is(err, sql.ErrNoRows) {
			err = s.r.QueryRowContext(ctx, qOutputMessage, h.SessionID, id).Scan(&at, &h.Segment)
			h.Kind, h.ID = "message", "m"+strconv.FormatInt(at, 10)
			if errors.Is(err, sql.ErrNoRows) {
				h.Kind, h.ID, err = "output", "o"+strconv.FormatInt(id, 10), nil
			}
		}
	case 1:
		h.Kind, h.ID = "page", "p"+strconv.FormatInt(id, 10)
		var summary, own string
		var o stored
		if err = s.r.QueryRowContext(ctx, qHitPage, id).Scan(&h.SessionID, &h.Segment, &summary, &own, &o.Size, &o.Plain, &o.Packed); err == nil {
			own, err = o.textOr(own)
			text = summary + "\n" + own
		}
	case 2:
		h.Kind, h.ID = "message", "m"+strconv.FormatInt(id, 10)
		var body string
		if err = s.r.QueryRowContext(ctx, qHitMessage, id).Scan(&h.SessionID, &h.Segment, &body); err == nil {
			var m llm.Message
			if err = json.Unmarshal([]byte(body), &m); err != nil {
				return h, fmt.Errorf("message %d: decode: %w", id, err)
			}
			text = messageText(m)
		}
	case 3:
		h.Kind = "handoff"
		err = s.r.QueryRowContext(ctx, qHitHandoff, id).Scan(&h.SessionID, &h.Segment, &text)
		h.ID = "seg" + strconv.Itoa(h.Segment)
	default:
		return h, fmt.Errorf("index entry of unknown kind %d", kind)
	}
	h.Snippet = snippet(text, terms)
	return h, err
}

// oneToken reports whether the index holds s as exactly one token (ASCII
// letters and digits only, as NewID's ids are).
func oneToken(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !('0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	})
}

// phrase quotes s as an FTS5 phrase: everything inside is literal.
func phrase(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// ftsQuery turns free text into an FTS5 MATCH expression that cannot be a
// syntax error: each whitespace-separated word that holds a letter or a
// digit becomes a quoted phrase (quotes doubled inside), a trailing *
// stays as the prefix operator, and the phrases are joined with OR. It
// also returns the words, lower-cased, for cutting snippets.
func ftsQuery(q string) (match string, terms []string) {
	q = strings.ToValidUTF8(q, " ")
	q = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, q)
	var phrases []string
	for _, w := range strings.Fields(q) {
		if len(phrases) == maxTerms {
			break
		}
		prefix := strings.HasSuffix(w, "*")
		w = strings.TrimRight(w, "*")
		if !strings.ContainsFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			continue
		}
		p := phrase(w)
		if prefix {
			p += "*"
		}
		phrases = append(phrases, p)
		terms = append(terms, strings.ToLower(strings.Trim(w, `"'`)))
	}
	return strings.Join(phrases, " OR "), terms
}

// Snippet sizes, in bytes, around the first match.
const (
	snippetBefore = 60
	snippetAfter  = 140
	snippetSlack  = 20 // how far a cut moves to fall between words
)

// snippet cuts text around the first of terms it contains (the start when
// none), on rune boundaries, with whitespace runs folded to one space.
func snippet(text string, terms []string) string {
	lower := strings.ToLower(text)
	at := -1
	if len(lower) == len(text) { // offsets agree only if lowering kept byte lengths
		for _, t := range terms {
			if i := strings.Index(lower, t); i >= 0 && (at < 0 || i < at) {
				at = i
			}
		}
	}
	start, end := 0, len(text)
	if at > snippetBefore {
		start = at - snippetBefore
	}
	if at < 0 {
		at = 0
	}
	if at+snippetAfter < end {
		end = at + snippetAfter
	}
	// Cut between words when one ends near the cut, else between runes.
	if start > 0 {
		if i := strings.IndexAny(text[start:at], " \t\n"); i >= 0 && i < snippetSlack {
			start += i + 1
		}
	}
	if end < len(text) {
		if i := strings.LastIndexAny(text[at:end], " \t\n"); i >= 0 && end-(at+i) < snippetSlack {
			end = at + i
		}
	}
	for start > 0 && start < len(text) && !utf8.RuneStart(text[start]) {
		start++
	}
	for end < len(text) && end > start && !utf8.RuneStart(text[end]) {
		end--
	}
	out := strings.Join(strings.Fields(text[start:end]), " ")
	if start > 0 {
		out = "…" + out
	}
	if end < len(text) {
		out += "…"
	}
	return out
}

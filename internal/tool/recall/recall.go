// Package recall is the recall tool: the model's way back to what left
// the window — outputs paged out (p42), handoffs of earlier segments
// (seg3), messages (m7) — by id or by keywords over the session. It
// reads through a store.Scope, so no id reaches another workspace's
// sessions.
//
// Of godwit's packages it imports only llm, internal/store and tool.
package recall

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

//go:embed recall.md
var description string

// MaxOutput caps what one call returns; a longer page is read on with
// offset.
const MaxOutput = 24 << 10

// Tool is recall.
type Tool struct{ st store.Scope }

// New returns the recall tool over the records of one workspace.
func New(st store.Scope) *Tool { return &Tool{st: st} }

func (*Tool) Name() string { return "recall" }

func (*Tool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "recall", Description: strings.TrimSpace(description), Schema: json.RawMessage(
		`{"type":"object","properties":{"query":{"type":"string","description":"An id (p42, seg3, D5, m7) or keywords."},"offset":{"type":"integer","description":"Byte offset to read a long page on from."}},"required":["query"]}`)}
}

type args struct {
	Query  string `json:"query"`
	Offset int    `json:"offset"`
}

// Run implements tool.Tool.
func (t *Tool) Run(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil || strings.TrimSpace(a.Query) == "" {
		return tool.Result{}, tool.Errorf(tool.CodeBadArgs, `Send {"query": "p42"} or {"query": "some keywords"}.`, "recall needs a query")
	}
	sess, _ := tool.SessionFrom(ctx)
	q := strings.TrimSpace(a.Query)
	switch {
	case isID(q, "p"):
		p, err := t.st.Page(ctx, q)
		if err != nil {
			return tool.Result{}, notFound(err, q)
		}
		return tool.Result{Content: window(fmt.Sprintf("[page %s: %s %s]\n", p.ID, p.Kind, strings.Join(p.Tags, " ")), p.Text, a.Offset, q, limit(ctx), sess)}, nil
	case isID(q, "seg"):
		n, _ := strconv.Atoi(q[3:])
		segs, err := t.st.Segments(ctx, sess.ID)
		if err != nil {
			return tool.Result{}, err
		}
		for _, s := range segs {
			if s.Seq == n && s.Handoff != "" {
				return tool.Result{Content: window(fmt.Sprintf("[handoff that ended segment %d]\n", n), s.Handoff, a.Offset, q, limit(ctx), sess)}, nil
			}
		}
		return tool.Result{}, tool.Errorf(tool.CodeNotFound, "Search by keywords instead.", "segment %d has no handoff (it is the current one, or it does not exist)", n)
	case isID(q, "D"):
		// A Decisions entry, whole, pastes and all: the ledger shows
		// pastes as markers and, past its budget, entries as one line.
		n, _ := strconv.Atoi(q[1:])
		ds, err := t.st.Decisions(ctx, sess.ID)
		if err != nil {
			return tool.Result{}, err
		}
		for _, d := range ds {
			if d.Seq == n {
				what := fmt.Sprintf("the user's words, turn %d", d.Turn)
				if d.Source != "user" {
					what = fmt.Sprintf("agreed, turn %d", d.Turn)
				}
				if d.SupersededBy != 0 {
					what += fmt.Sprintf("; superseded by D%d", d.SupersededBy)
				}
				head := fmt.Sprintf("[D%d: %s]\n", n, what)
				return tool.Result{Content: window(head, d.Text, a.Offset, q, limit(ctx), sess)}, nil
			}
		}
		return tool.Result{}, tool.Errorf(tool.CodeNotFound, "Entry ids come from the Decisions section.", "no entry D%d in this session", n)
	}
	hits, err := t.st.Search(ctx, sess.ID, q, 8)
	if err != nil {
		return tool.Result{}, err
	}
	if len(hits) == 0 {
		return tool.Result{Content: "no matches in this session for " + strconv.Quote(q)}, nil
	}
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "%s (%s, segment %d): %s\n", h.ID, h.Kind, h.Segment, strings.Join(strings.Fields(h.Snippet), " "))
	}
	b.WriteString("recall an id for the whole text.")
	return tool.Result{Content: b.String()}, nil
}

func isID(q, prefix string) bool {
	rest, ok := strings.CutPrefix(q, prefix)
	if !ok || rest == "" {
		return false
	}
	_, err := strconv.Atoi(rest)
	return err == nil
}

func notFound(err error, q string) error {
	if errors.Is(err, store.ErrNotFound) {
		return tool.Errorf(tool.CodeNotFound, "Ids come from stubs and handoffs; search by keywords instead.", "no %s", q)
	}
	return err
}

// limit is the most one call returns: MaxOutput, or less when the
// model's window holds less for one output.
func limit(ctx context.Context) int {
	if s, ok := tool.SessionFrom(ctx); ok && s.MaxOutputBytes > 0 && s.MaxOutputBytes < MaxOutput {
		return max(s.MaxOutputBytes, 2<<10)
	}
	return MaxOutput
}

// window returns text from offset, at most n bytes and, when the session
// says how to count, at most its share of tokens, with how to read on.
func window(head, text string, offset int, id string, n int, sess tool.Session) string {
	if offset < 0 || offset > len(text) {
		offset = 0
	}
	rest := text[offset:]
	cut := min(n, len(rest))
	for cut > 0 && cut < len(rest) && (rest[cut]&0xC0) == 0x80 {
		cut--
	}
	if k := sess.Fit(head+rest[:cut]) - len(head); k > 0 && k < cut {
		cut = k
	}
	if cut == len(rest) {
		return head + rest
	}
	return head + rest[:cut] + fmt.Sprintf("\n[truncated: bytes %d-%d of %d; recall {\"query\":%q,\"offset\":%d} reads on]", offset, offset+cut, len(text), id, offset+cut)
}

package memory

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

//go:embed search_memory.md
var searchDescription string

// MaxToolOutput caps what one call of search_memory or skill returns; a
// longer text is read on with offset.
const MaxToolOutput = 24 << 10

// SearchTool is search_memory.
type SearchTool struct{ s *Searcher }

// NewSearchTool returns the search_memory tool over s.
func NewSearchTool(s *Searcher) *SearchTool { return &SearchTool{s: s} }

func (*SearchTool) Name() string { return "search_memory" }

func (*SearchTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "search_memory", Description: strings.TrimSpace(searchDescription), Schema: json.RawMessage(
		`{"type":"object","properties":{"query":{"type":"string","description":"Keywords or a question, or an id (d12, e3, h7, p42)."},"offset":{"type":"integer","description":"Byte offset to read a long text on from."}},"required":["query"]}`)}
}

// docID matches the ids MemoryDoc takes.
var docID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[dehp][0-9]+$`) })

// Run implements tool.Tool.
func (t *SearchTool) Run(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct {
		Query  string `json:"query"`
		Offset int    `json:"offset"`
	}
	if err := json.Unmarshal(raw, &a); err != nil || strings.TrimSpace(a.Query) == "" {
		return tool.Result{}, tool.Errorf(tool.CodeBadArgs, `Send {"query": "some keywords"} or {"query": "d12"}.`, "search_memory needs a query")
	}
	sess, _ := tool.SessionFrom(ctx)
	q := strings.TrimSpace(a.Query)
	if docID().MatchString(q) {
		h, err := t.s.in.MemoryDoc(ctx, q)
		if errors.Is(err, store.ErrNotFound) {
			return tool.Result{}, tool.Errorf(tool.CodeNotFound, "Ids come from search_memory results; search by keywords instead.", "no %s", q)
		}
		if err != nil {
			return tool.Result{}, err
		}
		return tool.Result{Content: readOn("["+describeHit(h, sess.ID)+"]\n", h.Text, a.Offset, func(next int) string {
			return fmt.Sprintf(`search_memory {"query":%q,"offset":%d}`, q, next)
		})}, nil
	}
	res, err := t.s.Search(ctx, q, 8)
	if err != nil {
		return tool.Result{}, err
	}
	if len(res) == 0 {
		return tool.Result{Content: "no matches in long-term memory for " + strconv.Quote(q)}, nil
	}
	var b strings.Builder
	for _, r := range res {
		fmt.Fprintf(&b, "%s (%s): %s\n", r.ID, describeHit(r.MemoryHit, sess.ID), r.Snippet)
	}
	b.WriteString("Pass an id as the query for the whole text.")
	return tool.Result{Content: b.String()}, nil
}

// describeHit says what a document is, briefly: "decision D3, this
// session, superseded", "handoff ending segment 2, 2025-03-01".
func describeHit(h store.MemoryHit, session string) string {
	var parts []string
	switch h.Kind {
	case store.MemoryDecision:
		parts = append(parts, fmt.Sprintf("decision D%d", h.Seq))
	case store.MemoryHandoff:
		parts = append(parts, fmt.Sprintf("handoff ending segment %d", h.Seq))
	case store.MemoryPage:
		parts = append(parts, "page of "+cmp.Or(h.Detail, "output"))
	case store.MemoryEntryKind:
		where := h.Scope + " memory"
		if h.Scope == "project" {
			where += " of " + h.Workspace
		}
		parts = append(parts, where)
	}
	switch {
	case h.SessionID != "" && h.SessionID == session:
		parts = append(parts, "this session")
	case !h.At.IsZero():
		parts = append(parts, h.At.Format("2006-01-02"))
	}
	if h.Superseded {
		parts = append(parts, "superseded")
	}
	return strings.Join(parts, ", ")
}

// readOn returns text from offset, capped at MaxToolOutput, with the call
// that reads on.
func readOn(head, text string, offset int, again func(next int) string) string {
	if offset < 0 || offset > len(text) {
		offset = 0
	}
	for offset > 0 && offset < len(text) && (text[offset]&0xC0) == 0x80 {
		offset--
	}
	rest := text[offset:]
	if len(rest) <= MaxToolOutput {
		return head + rest
	}
	part := cutBytes(rest, MaxToolOutput)
	next := offset + len(part)
	return head + part + fmt.Sprintf("\n[truncated: bytes %d-%d of %d; %s reads on]", offset, next, len(text), again(next))
}

package window

import (
	"context"

	"github.com/godwit/godwit/llm"
)

// Pages keeps what the window decides, so that a resumed session, in
// another process, builds the same requests byte for byte: the prefix a
// segment was first sent with, the pages outputs went to, and how each
// output is shown. Wiring adapts the store to it.
type Pages interface {
	// PutPage keeps an output whole and returns its id ("p42").
	PutPage(ctx context.Context, p Page) (string, error)
	// PageText returns the text a page keeps: a resumed session leaves
	// out of its history the outputs already paged, and compaction reads
	// them back from their pages when it shrinks them further.
	PageText(ctx context.Context, id string) (string, error)
	// RecordShown stores (or replaces) how one output is shown in a
	// segment.
	RecordShown(ctx context.Context, sessionID string, segment int, s Shown) error
	// Shown returns a segment's records, oldest first.
	Shown(ctx context.Context, sessionID string, segment int) ([]Shown, error)
	// SegmentPrefix returns the prefix a segment was first sent with;
	// ok is false when none was kept.
	SegmentPrefix(ctx context.Context, sessionID string, segment int) (p Prefix, ok bool, err error)
	// SetSegmentPrefix keeps a segment's prefix.
	SetSegmentPrefix(ctx context.Context, sessionID string, segment int, p Prefix) error
}

// Page is a tool output kept whole.
type Page struct {
	SessionID string
	Segment   int
	Kind      string
	Tags      []string
	Tokens    int
	Summary   string
	Text      string
}

// Shown says how one tool output appears in a segment's requests.
type Shown struct {
	CallID string
	// Level is LevelCapped, LevelSummary or LevelStub.
	Level  int
	PageID string
	// Text replaces the output in the window.
	Text string
}

// Prefix is what a segment's requests start with: the system text (the
// prompt with rules, memory, skills and the deferred listing) and the tool
// table. Parts are the system text's named blocks, for accounting.
type Prefix struct {
	System string `json:"system"`
	// Base is the system prompt without the Parts, for accounting.
	Base  string         `json:"base"`
	Parts []Text         `json:"parts,omitempty"`
	Tools []llm.ToolSpec `json:"tools"`
}

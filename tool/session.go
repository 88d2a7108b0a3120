package tool

import (
	"context"
	"strings"
	"unicode/utf8"
)

// Session identifies the session, turn and segment a call runs in. The
// agent puts it in the context of every call, so that tools which record
// or look things up per session (recall, snapshots) need no per-session
// construction.
type Session struct {
	ID      string
	TurnID  int64
	Turn    int
	Segment int
	// MaxOutputBytes, when set, is about the most one output may take in
	// the model's window; tools that can cut their output at a natural
	// place (file_read at a line, recall at an offset) stay under it and
	// say how to read on. The window pages anything larger whole.
	MaxOutputBytes int
	// MaxOutputTokens and CountTokens, when set, let such a tool cut in
	// the window's own tokens: bytes are only a guess at them (Go is 2.9
	// bytes a token, a table of numbers 2).
	MaxOutputTokens int
	CountTokens     func(string) int
}

// Fit returns how much of text, cut at a line end (or, with no line end
// in reach, at a rune), fits the session's MaxOutputTokens: len(text)
// when all of it does or nothing says how to count.
func (s Session) Fit(text string) int {
	if s.MaxOutputTokens <= 0 || s.CountTokens == nil || len(text) <= s.MaxOutputTokens || s.CountTokens(text) <= s.MaxOutputTokens {
		return len(text)
	}
	// The longest prefix that fits, by bisection on bytes; then back to
	// a line end.
	lo, hi := 0, len(text)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if s.CountTokens(text[:mid]) <= s.MaxOutputTokens {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if i := strings.LastIndexByte(text[:lo], '\n'); i > lo/2 {
		return i + 1
	}
	for lo > 0 && lo < len(text) && !utf8.RuneStart(text[lo]) {
		lo--
	}
	return lo
}

type sessionKey struct{}

// WithSession returns ctx carrying s.
func WithSession(ctx context.Context, s Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// SessionFrom returns the session ctx carries.
func SessionFrom(ctx context.Context) (Session, bool) {
	s, ok := ctx.Value(sessionKey{}).(Session)
	return s, ok
}

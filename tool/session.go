package tool

import "context"

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

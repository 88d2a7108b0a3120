package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/tool"
)

// DefaultMaxBytes is the largest file a Recorder keeps a copy of.
const DefaultMaxBytes = 32 << 20

// Options configure a Recorder.
type Options struct {
	// Workspace is where the files written are; they are read through
	// it, so a folder swapped for a link cannot put a file from outside
	// into the store (and so, by undo, into the workspace). Required.
	Workspace *workspace.Workspace
	// MaxBytes bounds the size of a file kept for undo; a write to a
	// larger file is refused. 0 means DefaultMaxBytes.
	MaxBytes int64
}

// Recorder snapshots files before the agent writes them. It is safe for
// concurrent use. One Recorder follows one session at a time: SetTurn
// moves it to the turn in progress.
type Recorder struct {
	ws   *workspace.Workspace
	st   *store.Store
	max  int64
	mu   sync.Mutex      // guards the fields below
	sess string          // session of the current turn
	seq  int             // its number in the session
	id   int64           // its store id, looked up on first use
	seen map[string]bool // paths already kept in this turn
}

// NewRecorder returns a Recorder writing to st.
func NewRecorder(st *store.Store, opts Options) *Recorder {
	r := &Recorder{ws: opts.Workspace, st: st, max: opts.MaxBytes}
	if r.max <= 0 {
		r.max = DefaultMaxBytes
	}
	return r
}

// SetTurn tells the Recorder which turn is running: the session id and
// the turn's number in it (agent.Event SessionID and Turn of the
// turn.started event). Call it before the turn's first tool call.
func (r *Recorder) SetTurn(sessionID string, turnSeq int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sess == sessionID && r.seq == turnSeq {
		return
	}
	r.sess, r.seq, r.id, r.seen = sessionID, turnSeq, 0, map[string]bool{}
}

// ErrNoTurn is returned by BeforeWrite before SetTurn was called.
var ErrNoTurn = errors.New("snapshot: no turn is set, so the write could not be made undoable; the program must call Recorder.SetTurn at the start of each turn")

// BeforeWrite keeps abs as it is now, unless this turn already kept it.
// It fits tool/fs Options.BeforeWrite; an error stops the write.
//
// When ctx carries the call's session (tool.WithSession, as the agent's
// runner sets it), that turn is used and SetTurn is not needed.
func (r *Recorder) BeforeWrite(ctx context.Context, abs string) error {
	if s, ok := tool.SessionFrom(ctx); ok && s.ID != "" && s.Turn > 0 {
		r.SetTurn(s.ID, s.Turn)
		r.mu.Lock()
		if r.id == 0 {
			r.id = s.TurnID
		}
		r.mu.Unlock()
	}
	r.mu.Lock()
	sess, seq, id, done := r.sess, r.seq, r.id, r.seen[abs]
	r.mu.Unlock()
	if sess == "" {
		return ErrNoTurn
	}
	if done {
		return nil
	}
	if id == 0 {
		var err error
		if id, err = r.turnID(ctx, sess, seq); err != nil {
			return err
		}
	}
	snap := store.FileSnapshot{SessionID: sess, TurnID: id, Path: abs}
	fi, err := r.ws.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// The write creates the folders missing on its way: keep them
		// too (a path ending in a separator), so undo removes them.
		for dir := filepath.Dir(abs); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
			if _, err := r.ws.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
				break
			}
			folder := store.FileSnapshot{SessionID: sess, TurnID: id, Path: dir + string(filepath.Separator)}
			if _, err := r.st.RecordSnapshot(ctx, folder); err != nil {
				return fmt.Errorf("snapshot: %w", err)
			}
		}
	case err != nil:
		return err // the write would fail on it too
	case !fi.Mode().IsRegular():
		return nil // a folder or device: the tool reports it
	case fi.Size() > r.max:
		return tool.Errorf(tool.CodeTooLarge, "Ask the user to make this change, or change a smaller file.",
			"%s is %d MB; godwit keeps a copy of files up to %d MB so that changes can be undone", abs, fi.Size()>>20, r.max>>20)
	default:
		// Bounded as read, not only by the Lstat: a background job may
		// grow the file in between.
		if snap.Content, err = r.ws.ReadLimit(abs, r.max); errors.Is(err, workspace.ErrTooLarge) {
			return tool.Errorf(tool.CodeTooLarge, "Ask the user to make this change, or change a smaller file.",
				"%s grew past %d MB while godwit kept a copy of it so that changes can be undone", abs, r.max>>20)
		}
		if err != nil {
			return err
		}
		snap.Existed = true
	}
	if _, err := r.st.RecordSnapshot(ctx, snap); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	r.mu.Lock()
	if r.sess == sess && r.seq == seq {
		r.seen[abs], r.id = true, id
	}
	r.mu.Unlock()
	return nil
}

// turnID finds the store id of turn seq of the session.
func (r *Recorder) turnID(ctx context.Context, sess string, seq int) (int64, error) {
	turns, err := r.st.Turns(ctx, sess)
	if err != nil {
		return 0, fmt.Errorf("snapshot: %w", err)
	}
	for _, t := range turns {
		if t.Seq == seq {
			return t.ID, nil
		}
	}
	return 0, fmt.Errorf("snapshot: session %s has no turn %d; SetTurn must name a turn the store has started", sess, seq)
}

package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// VerifyRun is one run of the --verify command after a turn.
type VerifyRun struct {
	ID         int64
	SessionID  string
	TurnID     int64
	Round      int // 1, 2, ... within the turn
	Command    string
	ExitCode   int
	StartedAt  time.Time
	Duration   time.Duration
	OutputTail string
}

// RecordVerifyRun stores v (StartedAt now when zero) and returns its id.
func (s *Store) RecordVerifyRun(ctx context.Context, v VerifyRun) (int64, error) {
	if v.Command == "" {
		return 0, errors.New("store: record verify run: empty Command; set the command that ran")
	}
	return s.insert(ctx, "record verify run", qRecordVerifyRun, v.SessionID, null(v.TurnID), v.Round,
		v.Command, v.ExitCode, s.stamp(v.StartedAt).UnixMilli(), v.Duration.Microseconds(), v.OutputTail)
}

// VerifyRuns returns the session's verify runs in the order recorded.
func (s *Store) VerifyRuns(ctx context.Context, sessionID string) ([]VerifyRun, error) {
	return list(ctx, s.r, "verify runs", scanRow[VerifyRun], qVerifyRuns, sessionID)
}

// FileSnapshot is a file as it was before a turn first wrote it.
type FileSnapshot struct {
	ID        int64
	SessionID string
	TurnID    int64 // required: undo works turn by turn
	TurnSeq   int   // filled in by Snapshots
	Path      string
	// Existed is false when the turn created the file; undo deletes it.
	Existed bool
	Content []byte
	// Hash is the hex SHA-256 of Content; RecordSnapshot computes it when
	// empty and the file existed.
	Hash      string
	CreatedAt time.Time
}

// RecordSnapshot stores f (CreatedAt now when zero) and returns its id.
func (s *Store) RecordSnapshot(ctx context.Context, f FileSnapshot) (int64, error) {
	if f.TurnID == 0 || f.Path == "" {
		return 0, fmt.Errorf("store: record snapshot: TurnID and Path are required (got turn %d, path %q)", f.TurnID, f.Path)
	}
	if !f.Existed && len(f.Content) > 0 {
		return 0, fmt.Errorf("store: record snapshot of %s: content given for a file that did not exist; set Existed", f.Path)
	}
	var content any
	if f.Existed {
		if f.Content == nil {
			f.Content = []byte{}
		}
		content = f.Content
		if f.Hash == "" {
			sum := sha256.Sum256(f.Content)
			f.Hash = hex.EncodeToString(sum[:])
		}
	}
	return s.insert(ctx, "record snapshot of "+f.Path, qRecordSnapshot, f.SessionID, f.TurnID, f.Path,
		f.Existed, content, f.Hash, s.stamp(f.CreatedAt).UnixMilli())
}

// Snapshots returns the session's snapshots taken in turns numbered
// fromTurnSeq or later, in the order recorded (so the first snapshot of
// a path is its state before those turns).
func (s *Store) Snapshots(ctx context.Context, sessionID string, fromTurnSeq int) ([]FileSnapshot, error) {
	return list(ctx, s.r, "snapshots", scanRow[FileSnapshot], qSnapshots, sessionID, fromTurnSeq)
}

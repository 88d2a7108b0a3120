package store

import (
	"context"
	"fmt"
	"time"
)

// ProcStatus says whether a command's process group still runs.
type ProcStatus string

const (
	ProcRunning ProcStatus = "running"
	// ProcEnded: the command finished on its own.
	ProcEnded ProcStatus = "ended"
	// ProcKilled: godwit killed it (timeout, cancel, stop, the session's
	// end, or a later godwit ending what a dead one left).
	ProcKilled ProcStatus = "killed"
)

// Proc is the process group one shell command ran in.
type Proc struct {
	ID        int64
	SessionID string // "" when the command ran outside a session
	TurnID    int64
	CallID    string // the tool call that started it
	Job       string // the background job id; "" for a foreground command
	Command   string
	// PID is the group leader and the process group id; PIDStart and
	// Boot tell it from a later process with the same pid.
	PID        int
	PIDStart   uint64
	Boot       string
	Supervised bool
	// OwnerPID and OwnerStart name the godwit process that started it.
	OwnerPID   int
	OwnerStart uint64
	Status     ProcStatus
	How        string // how it ended: "exit 0", "killed", ...
	Note       string // why godwit killed it
	StartedAt  time.Time
	EndedAt    time.Time
}

// RecordProc stores p as running (StartedAt now when zero) and returns
// its id.
func (s *Store) RecordProc(ctx context.Context, p Proc) (int64, error) {
	if p.PID <= 0 || p.OwnerPID <= 0 {
		return 0, fmt.Errorf("store: record proc: PID and OwnerPID are required (got %d, %d)", p.PID, p.OwnerPID)
	}
	return s.insert(ctx, "record proc", qRecordProc, null(p.SessionID), null(p.TurnID), p.CallID, p.Job, p.Command,
		p.PID, int64(p.PIDStart), p.Boot, p.Supervised, p.OwnerPID, int64(p.OwnerStart), s.stamp(p.StartedAt).UnixMilli())
}

// EndProc records how the running proc id ended. It reports false when
// the row had already ended (another process got there first).
func (s *Store) EndProc(ctx context.Context, id int64, status ProcStatus, how, note string) (bool, error) {
	if status != ProcEnded && status != ProcKilled {
		return false, fmt.Errorf("store: end proc %d: status %q (want ended or killed)", id, status)
	}
	res, err := s.w.ExecContext(ctx, qEndProc, string(status), how, note, s.now().UnixMilli(), id)
	if err != nil {
		return false, wrap("end proc", err)
	}
	n, err := res.RowsAffected()
	return n > 0, wrap("end proc", err)
}

// RunningProcs returns every proc still recorded as running, of every
// session and process, oldest first.
func (s *Store) RunningProcs(ctx context.Context) ([]Proc, error) {
	return s.procs(ctx, "running procs", qRunningProcs)
}

// Procs returns the session's procs in the order started.
func (s *Store) Procs(ctx context.Context, sessionID string) ([]Proc, error) {
	return s.procs(ctx, "procs", qProcs, sessionID)
}

func (s *Store) procs(ctx context.Context, op, query string, args ...any) ([]Proc, error) {
	// The writer: these are read between the engine's own writes.
	return list(ctx, s.w, op, scanRow[Proc], query, args...)
}

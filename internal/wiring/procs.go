package wiring

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/tool/shell"
	"github.com/godwit/godwit/tool"
)

// trackProcs records, through shell.Options.Track, the process group of
// every command a shell starts, by session and call, and how it ended;
// a godwit that dies leaves its rows running for the next one to sweep.
func trackProcs(st *store.Store, log *slog.Logger) func(context.Context, shell.Started) func(string) {
	self := shell.Self()
	return func(ctx context.Context, c shell.Started) func(string) {
		ctx = context.WithoutCancel(ctx) // the record outlives a cancelled call
		sess, _ := tool.SessionFrom(ctx)
		id, err := st.RecordProc(ctx, store.Proc{SessionID: sess.ID, TurnID: sess.TurnID, CallID: tool.CallIDFrom(ctx), Job: c.Job,
			Command: c.Command, PID: c.PID, PIDStart: c.Start, Boot: c.Boot, Supervised: c.Supervised,
			OwnerPID: self.PID, OwnerStart: self.Start})
		if err != nil {
			log.Error("wiring: recording a command's process group", "pid", c.PID, "err", err)
			return func(string) {}
		}
		return func(how string) {
			status, note := store.ProcEnded, ""
			if how == "killed" {
				status, note = store.ProcKilled, "killed by godwit: a timeout, a cancel, a stop, or the end of the session"
			}
			if _, err := st.EndProc(ctx, id, status, how, note); err != nil {
				log.Error("wiring: recording the end of a command", "pid", c.PID, "err", err)
			}
		}
	}
}

// sweepOrphans ends every process group recorded as running whose godwit
// is gone (a pid is signalled only when its start stamp matches), and
// closes its row as killed, so a resumed session tells the model so.
func sweepOrphans(ctx context.Context, st *store.Store, grace time.Duration, log *slog.Logger) {
	procs, err := st.RunningProcs(ctx)
	if err != nil {
		log.Warn("wiring: reading the commands earlier runs left", "err", err)
		return
	}
	for _, p := range procs {
		owner := shell.Identity{PID: p.OwnerPID, Start: p.OwnerStart, Boot: p.Boot}
		if owner.Alive() {
			continue
		}
		note := fmt.Sprintf("godwit (pid %d) ended while the command ran; ", p.OwnerPID)
		if shell.EndOrphan(shell.Identity{PID: p.PID, Start: p.PIDStart, Boot: p.Boot}, grace) {
			note += "it was still running, and the next godwit killed it"
			log.Warn("wiring: killed a command an earlier godwit left running", "pid", p.PID, "command", p.Command)
		} else {
			note += "its processes were killed with it"
		}
		if _, err := st.EndProc(ctx, p.ID, store.ProcKilled, "killed", note); err != nil {
			log.Warn("wiring: closing the record of a command left running", "pid", p.PID, "err", err)
		}
	}
}

package store

import (
	"context"
	"testing"
)

func TestProcs(t *testing.T) {
	t.Parallel()
	st, sid := openWithSession(t)
	ctx := context.Background()
	fg, err := st.RecordProc(ctx, Proc{SessionID: sid, CallID: "c1", Command: "make", PID: 100, PIDStart: 7, Boot: "b",
		Supervised: true, OwnerPID: 50, OwnerStart: 3})
	if err != nil {
		t.Fatal(err)
	}
	job, err := st.RecordProc(ctx, Proc{SessionID: sid, CallID: "c2", Job: "j1", Command: "serve", PID: 101, OwnerPID: 50})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordProc(ctx, Proc{Command: "go test", PID: 102, OwnerPID: 50}); err != nil {
		t.Fatalf("a proc outside any session: %v", err)
	}
	if _, err := st.RecordProc(ctx, Proc{SessionID: sid, PID: 0, OwnerPID: 50}); err == nil {
		t.Error("a proc without a pid was recorded")
	}
	if ok, err := st.EndProc(ctx, fg, ProcEnded, "exit 0", ""); !ok || err != nil {
		t.Fatalf("end: %v %v", ok, err)
	}
	if ok, _ := st.EndProc(ctx, fg, ProcKilled, "killed", "late"); ok {
		t.Error("a proc ended twice")
	}
	if _, err := st.EndProc(ctx, job, ProcRunning, "", ""); err == nil {
		t.Error("ended as running")
	}
	running, err := st.RunningProcs(ctx)
	if err != nil || len(running) != 2 || running[0].ID != job || running[1].SessionID != "" {
		t.Fatalf("running = %+v, %v", running, err)
	}
	if ok, _ := st.EndProc(ctx, job, ProcKilled, "killed", "godwit ended"); !ok {
		t.Fatal("could not end the job")
	}
	ps, err := st.Procs(ctx, sid)
	if err != nil || len(ps) != 2 {
		t.Fatalf("procs = %+v, %v", ps, err)
	}
	p := ps[0]
	if p.CallID != "c1" || p.PID != 100 || p.PIDStart != 7 || p.Boot != "b" || !p.Supervised || p.OwnerStart != 3 ||
		p.Status != ProcEnded || p.How != "exit 0" || p.StartedAt.IsZero() || p.EndedAt.IsZero() {
		t.Errorf("fg = %+v", p)
	}
	if q := ps[1]; q.Job != "j1" || q.Status != ProcKilled || q.Note != "godwit ended" {
		t.Errorf("job = %+v", q)
	}
}

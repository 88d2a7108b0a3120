//go:build linux

package sandbox_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/sandbox"
	"github.com/godwit/godwit/internal/tool/shell"
)

// BenchmarkViewCost is what the view costs a command: `true` run through
// shell_exec (supervised, sandboxed) with Landlock alone and with the
// view's namespaces and mounts, alternately, so that the machine's load
// weighs on both alike. It reports the median wall time of each, the
// median of the paired differences, and the CPU time the command's
// processes used (children's rusage) per run:
//
//	go test -run - -bench ViewCost -benchtime 300x ./internal/sandbox
func BenchmarkViewCost(b *testing.B) {
	if _, err := sandbox.Status(); err != nil {
		b.Skip(err)
	}
	w := newWorld(b)
	b.Setenv("HOME", w.home)
	plain := writable(w.dirs)
	viewed := writable(w.dirs)
	var refused atomic.Int32
	viewed.View = w.view(&refused, b)
	shells := [2]*shell.Shell{}
	for i, cfg := range []sandbox.Config{plain, viewed} {
		shells[i] = shell.New(shell.Options{Workdir: w.ws, Wrap: sandbox.Wrap(cfg)})
		defer shells[i].Close()
	}
	args, _ := json.Marshal(map[string]string{"command": "true"})
	run := func(sh *shell.Shell) (wall, cpu time.Duration) {
		var before, after syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &before)
		start := time.Now()
		res, err := sh.Run(context.Background(), args)
		wall = time.Since(start)
		if err != nil || res.ExitCode == nil || *res.ExitCode != 0 {
			b.Fatalf("%v %s", err, res.Content)
		}
		_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &after)
		used := func(r syscall.Rusage) time.Duration {
			return time.Duration(r.Utime.Nano() + r.Stime.Nano())
		}
		return wall, used(after) - used(before)
	}
	run(shells[1]) // the probe, once per session
	if refused.Load() != 0 {
		b.Skip("namespaces are refused here")
	}
	var walls, cpus [2][]time.Duration
	var diffs []time.Duration
	for b.Loop() {
		var w [2]time.Duration
		for i, sh := range shells {
			var c time.Duration
			w[i], c = run(sh)
			walls[i], cpus[i] = append(walls[i], w[i]), append(cpus[i], c)
		}
		diffs = append(diffs, w[1]-w[0])
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.ReportMetric(median(walls[0]), "landlock-ms")
	b.ReportMetric(median(walls[1]), "view-ms")
	b.ReportMetric(median(diffs), "diff-ms")
	b.ReportMetric(median(cpus[0]), "landlock-cpu-ms")
	b.ReportMetric(median(cpus[1]), "view-cpu-ms")
}

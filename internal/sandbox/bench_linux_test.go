//go:build linux

package sandbox_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/sandbox"
	"github.com/godwit/godwit/internal/tool/shell"
)

// BenchmarkViewCost is what the view costs a command: `true` run through
// shell_exec (supervised, sandboxed) with Landlock alone and with the
// view's namespaces and mounts, alternately, so that the machine's load
// weighs on both alike. It reports the median time of each and the
// median of the paired differences. On a machine others load, run the
// test binary at a real-time priority so that their load stays out:
//
//	go test -c -o /tmp/sandbox.test ./internal/sandbox && cd internal/sandbox &&
//	chrt -f 10 /tmp/sandbox.test -test.run - -test.bench ViewCost -test.benchtime 300x
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
	run := func(sh *shell.Shell) time.Duration {
		start := time.Now()
		res, err := sh.Run(context.Background(), args)
		if err != nil || res.ExitCode == nil || *res.ExitCode != 0 {
			b.Fatalf("%v %s", err, res.Content)
		}
		return time.Since(start)
	}
	run(shells[1]) // the probe, once per session
	if refused.Load() != 0 {
		b.Skip("namespaces are refused here")
	}
	var took [2][]time.Duration
	var diffs []time.Duration
	for b.Loop() {
		var w [2]time.Duration
		for i, sh := range shells {
			w[i] = run(sh)
			took[i] = append(took[i], w[i])
		}
		diffs = append(diffs, w[1]-w[0])
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.ReportMetric(median(took[0]), "landlock-ms")
	b.ReportMetric(median(took[1]), "view-ms")
	b.ReportMetric(median(diffs), "diff-ms")
}

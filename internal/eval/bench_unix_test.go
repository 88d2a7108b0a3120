//go:build unix

package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkJobs runs the repository's suites (ten tasks, scripted models)
// with --jobs 1 and --jobs 2, alternating so that a change in the
// machine's load hits both alike, and reports each one's wall time, the
// CPU time it used (this process and the commands it ran), and the wall
// ratio. The target is about 0.5 on an idle machine of two cores; on a
// busy one the ratio shows how much CPU was to be had, and cpu-s over
// wall-s shows how many cores one job already keeps busy.
//
//	go test ./internal/eval -run '^$' -bench BenchmarkJobs -benchtime 3x
func BenchmarkJobs(b *testing.B) {
	tasks, err := LoadTasks("../../evals")
	if err != nil {
		b.Fatal(err)
	}
	run := func(jobs int) (wall, cpu time.Duration) {
		c0 := cpuTime()
		start := time.Now()
		res, err := Run(context.Background(), tasks, Options{Jobs: jobs})
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range res.Runs {
			if !r.Pass {
				b.Fatalf("%s failed: %v", r.Task, r.Failures)
			}
		}
		return time.Since(start), cpuTime() - c0
	}
	run(2) // warms the Go build cache the go tasks compile with
	var wall, cpu [3]time.Duration
	n := 0
	for b.Loop() {
		for _, j := range []int{1, 2} {
			w, c := run(j)
			wall[j] += w
			cpu[j] += c
		}
		n++
	}
	per := func(d time.Duration) float64 { return d.Seconds() / float64(n) }
	b.ReportMetric(float64(len(tasks)), "tasks")
	b.ReportMetric(per(wall[1]), "jobs1-wall-s")
	b.ReportMetric(per(cpu[1]), "jobs1-cpu-s")
	b.ReportMetric(per(wall[2]), "jobs2-wall-s")
	b.ReportMetric(per(cpu[2]), "jobs2-cpu-s")
	b.ReportMetric(wall[2].Seconds()/wall[1].Seconds(), "jobs2/jobs1")
}

// cpuTime is the user and system time of this process and of its waited
// children (the tasks' commands).
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

// BenchmarkJobsWaiting is BenchmarkJobs with ten tasks that mostly wait
// (a command that sleeps half a second): it shows how far the runner
// overlaps runs whatever CPU the machine has to spare.
//
//	go test ./internal/eval -run '^$' -bench BenchmarkJobsWaiting -benchtime 3x
func BenchmarkJobsWaiting(b *testing.B) {
	root := b.TempDir()
	var tasks []*Task
	for i := 0; i < 10; i++ {
		y := fmt.Sprintf("id: wait-%d\nversion: 1\nturns: [wait]\nchecks: {commands: ['sleep 0.5']}\n"+
			"model: {rules: [{when: {user: wait}, say: waited}]}\n", i)
		dir := filepath.Join(root, "waiting", fmt.Sprint(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, TaskFile), []byte(y), 0o644); err != nil {
			b.Fatal(err)
		}
		t, err := LoadTask(dir)
		if err != nil {
			b.Fatal(err)
		}
		tasks = append(tasks, t)
	}
	var wall [3]time.Duration
	n := 0
	for b.Loop() {
		for _, j := range []int{1, 2} {
			start := time.Now()
			if _, err := Run(context.Background(), tasks, Options{Jobs: j}); err != nil {
				b.Fatal(err)
			}
			wall[j] += time.Since(start)
		}
		n++
	}
	b.ReportMetric(wall[1].Seconds()/float64(n), "jobs1-wall-s")
	b.ReportMetric(wall[2].Seconds()/float64(n), "jobs2-wall-s")
	b.ReportMetric(wall[2].Seconds()/wall[1].Seconds(), "jobs2/jobs1")
}

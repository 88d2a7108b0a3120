//go:build unix

package shell

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether pid is a live process. A zombie is dead: where
// PID 1 does not reap orphans, killed grandchildren stay zombies forever,
// and kill(pid, 0) still succeeds on them.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc (darwin): trust kill
	}
	state, _, ok := parseStat(stat)
	return !ok || (state != 'Z' && state != 'X')
}

// waitPids waits until the file at path holds n pids, one a line, and
// returns them. It waits for processes to start; it asserts no timing.
func waitPids(t *testing.T, path string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		pids := readPids(t, path)
		if len(pids) >= n {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %d pids, want %d", path, len(pids), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readPids(t *testing.T, path string) []int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("bad pid %q in %s", f, path)
		}
		pids = append(pids, pid)
	}
	return pids
}

// reapOnCleanup kills, when the test ends, every pid recorded in path
// that is still alive, so that a test failing early leaves no orphans.
func reapOnCleanup(t *testing.T, path string) {
	t.Cleanup(func() {
		for _, pid := range readPids(t, path) {
			if alive(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

// assertDead fails for every pid still alive, and kills it so that a
// failing test leaves no orphans either.
func assertDead(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("pid %d is still alive", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		in    string
		state byte
		pgrp  int
		ok    bool
	}{
		{"123 (bash) S 1 123 123 0 -1", 'S', 123, true},
		{"77 (we ird) (x)) Z 1 70 70 0", 'Z', 70, true},
		{"garbage", 0, 0, false},
		{"1 (x) R 0 notanumber", 0, 0, false},
	} {
		state, pg, ok := parseStat([]byte(tc.in))
		if state != tc.state || pg != tc.pgrp || ok != tc.ok {
			t.Errorf("parseStat(%q) = %c %d %v, want %c %d %v", tc.in, state, pg, ok, tc.state, tc.pgrp, tc.ok)
		}
	}
}

func TestGroupAlive(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	s := newShell(t)
	mustCall(t, s, m{"command": "sleep 1000", "background": true})
	p := s.jobs["j1"].proc
	if !groupAlive(p.pid) {
		t.Fatalf("group %d of a sleeping job is not alive", p.pid)
	}
	p.stop(s.opts.KillGrace, s.log)
	if groupAlive(p.pid) {
		t.Fatalf("group %d alive after stop", p.pid)
	}
}

// script writes a shell script into dir, so tests can use quotes freely.
func script(t *testing.T, dir, body string) string {
	t.Helper()
	path := filepath.Join(dir, "script.sh")
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// parseStat returns the state and process group of a /proc/<pid>/stat
// line.
func parseStat(stat []byte) (state byte, pgrp int, ok bool) {
	si, ok := parseStatInfo(stat)
	return si.state, si.pgrp, ok
}

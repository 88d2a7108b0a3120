//go:build linux

package attack

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// leftovers lists live processes that belong to scene s: ones with its
// token in their environment, their working folder in its base, or its
// base in their command line. Zombies do not count (nothing runs).
func leftovers(s *scene) []int {
	var pids []int
	names, _ := filepath.Glob("/proc/[0-9]*")
	self := os.Getpid()
	for _, dir := range names {
		pid, err := strconv.Atoi(filepath.Base(dir))
		if err != nil || pid == self {
			continue
		}
		stat, err := os.ReadFile(dir + "/stat")
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) {
			if stat[i+2] == 'Z' || stat[i+2] == 'X' {
				continue
			}
			// A process older than the scene is none of its own: skip
			// the three reads below, most of a scan's cost. Fields
			// from the state on, so starttime (field 22) is the 20th.
			f := bytes.Fields(stat[i+2:])
			if len(f) > 19 {
				if start, err := strconv.ParseInt(string(f[19]), 10, 64); err == nil && start < s.born {
					continue
				}
			}
		}
		env, _ := os.ReadFile(dir + "/environ")
		cmdline, _ := os.ReadFile(dir + "/cmdline")
		cwd, _ := os.Readlink(dir + "/cwd")
		if bytes.Contains(env, []byte("ATTACK_TOKEN="+s.token+"\x00")) || within(s.base, cwd) ||
			bytes.Contains(cmdline, []byte(s.base)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// bootTicks is the time since boot in the clock ticks of /proc/PID/stat
// (USER_HZ, 100 on Linux), less a second of margin; 0 if unreadable.
func bootTicks() int64 {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0
	}
	up, err := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	if err != nil {
		return 0
	}
	return int64(up*100) - 100
}

// settle waits up to d for s's processes to end (a group being killed
// takes a moment) and returns those still alive.
func settle(s *scene, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		left := leftovers(s)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// describe names processes for a failure message.
func describe(pids []int) string {
	var parts []string
	for _, pid := range pids {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		parts = append(parts, fmt.Sprintf("%d %q", pid, strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))))
	}
	return strings.Join(parts, ", ")
}

// reap kills what an attack left behind, so one broken attack does not
// leak into the machine or the next check.
func reap(s *scene) {
	for range 3 {
		left := leftovers(s)
		if len(left) == 0 {
			return
		}
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// growing reports whether file f is still being written: its size
// changes within d.
func growing(f string, d time.Duration) bool {
	size := func() int64 {
		fi, err := os.Stat(f)
		if err != nil {
			return -1
		}
		return fi.Size()
	}
	before := size()
	time.Sleep(d)
	return size() != before
}

package shell

import (
	"os"
	"strconv"
	"syscall"
)

// groupAlive reports whether any live process is in group pgid. It reads
// /proc rather than trusting kill(-pgid, 0), which also succeeds for
// zombies, and orphaned zombies stay forever where PID 1 does not reap
// them (containers, microVMs).
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return false
	}
	if si, ok := statOf(strconv.Itoa(pgid)); ok && si.pgrp == pgid && live(si.state) {
		return true
	}
	return scanGroup(pgid)
}

// scanGroup looks through /proc for a live member of group pgid.
func scanGroup(pgid int) bool {
	found := false
	if !eachProc(func(_ int, si statInfo) bool { found = si.pgrp == pgid; return !found }) {
		// No /proc mounted: zombies count as alive.
		err := syscall.Kill(-pgid, 0)
		return err == nil || err == syscall.EPERM
	}
	return found
}

// eachProc calls f with every live process until f returns false; it
// reports false when /proc cannot be opened.
func eachProc(f func(pid int, si statInfo) bool) bool {
	dir, err := os.Open("/proc")
	if err != nil {
		return false
	}
	defer dir.Close()
	names, _ := dir.Readdirnames(-1)
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		// An error means it exited meanwhile.
		if si, ok := statOf(name); ok && live(si.state) && !f(pid, si) {
			break
		}
	}
	return true
}

// statOf reads and parses /proc/PID/stat.
func statOf(pid string) (statInfo, bool) {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return statInfo{}, false
	}
	return parseStatInfo(stat)
}

package shell

import (
	"bytes"
	"strconv"
)

// statInfo is what godwit reads of a /proc/<pid>/stat line.
type statInfo struct {
	state byte // R, S, D, Z, X, ...
	ppid  int
	pgrp  int
	start uint64 // clock ticks after boot: with the pid, who the process is
}

// parseStatInfo parses a /proc/<pid>/stat line: "pid (comm) state ppid
// pgrp ...". comm may hold spaces and parentheses, so fields are counted
// from the last ')'; start is 0 when the line is cut short.
func parseStatInfo(stat []byte) (statInfo, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return statInfo{}, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return statInfo{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pg, err2 := strconv.Atoi(string(f[2]))
	if err1 != nil || err2 != nil {
		return statInfo{}, false
	}
	si := statInfo{state: f[0][0], ppid: ppid, pgrp: pg}
	if len(f) > 19 {
		si.start, _ = strconv.ParseUint(string(f[19]), 10, 64)
	}
	return si, true
}

// live reports whether a state is that of a running (not dead) process.
func live(state byte) bool { return state != 'Z' && state != 'X' }

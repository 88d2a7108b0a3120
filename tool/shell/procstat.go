package shell

import (
	"bytes"
	"strconv"
)

// parseStat returns the state and process group of a /proc/<pid>/stat
// line: "pid (comm) state ppid pgrp ...". comm may hold spaces and
// parentheses, so fields are counted from the last ')'.
func parseStat(stat []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pg, true
}

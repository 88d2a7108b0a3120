package shell

import (
	"syscall"
	"testing"
)

// BenchmarkScanGroup measures the /proc scan groupAlive falls back to
// when the leader is gone but the group is not empty.
func BenchmarkScanGroup(b *testing.B) {
	pgid := syscall.Getpgrp()
	for b.Loop() {
		scanGroup(pgid)
	}
}

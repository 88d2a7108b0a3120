//go:build unix

package shell

import (
	"context"
	"encoding/json"
	"syscall"
	"testing"
)

// BenchmarkGroupAlive measures one liveness check, which stop repeats
// every 10ms while a group dies.
func BenchmarkGroupAlive(b *testing.B) {
	b.Run("gone", func(b *testing.B) {
		for b.Loop() {
			groupAlive(1 << 22) // above pid_max: no such group
		}
	})
	b.Run("live leader", func(b *testing.B) {
		pgid := syscall.Getpgrp()
		for b.Loop() {
			groupAlive(pgid)
		}
	})
}

// BenchmarkRunEcho measures the whole cost of a trivial foreground call.
func BenchmarkRunEcho(b *testing.B) {
	s := New(Options{Workdir: b.TempDir()})
	defer s.Close()
	args := json.RawMessage(`{"command":"echo hi"}`)
	for b.Loop() {
		if _, err := s.Run(context.Background(), args); err != nil {
			b.Fatal(err)
		}
	}
}

package workspace_test

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSwapRace is break 5 of issue 24 in a loop: while one goroutine
// swaps the folder sub and a link to outside (renameat2 exchange, as a
// background job can), others resolve sub/.bashrc and write it. Nothing
// may land outside, temporary files included.
func TestSwapRace(t *testing.T) {
	w, root, outside := setup(t)
	must(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(t, os.Symlink(outside, filepath.Join(root, "swap")))
	var stop atomic.Bool
	var swaps sync.WaitGroup
	swaps.Add(1)
	go func() {
		defer swaps.Done()
		for !stop.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(root, "sub"), unix.AT_FDCWD, filepath.Join(root, "swap"), unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("renameat2: %v", err)
				return
			}
		}
	}()
	var writers sync.WaitGroup
	var wrote atomic.Int64
	for range 4 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for range 500 {
				abs, err := w.Resolve("sub/.bashrc")
				if err != nil {
					continue // resolved outside: refused before any write
				}
				if w.Replace(abs, 0o644, func(f io.Writer) error { _, err := io.WriteString(f, "pwned\n"); return err }) == nil {
					wrote.Add(1)
				}
			}
		}()
	}
	writers.Wait()
	stop.Store(true)
	swaps.Wait()
	ents, err := os.ReadDir(outside)
	must(t, err)
	if len(ents) != 1 { // secret.txt
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("files appeared outside: %v", names)
	}
	t.Logf("%d of 2000 writes landed inside; the rest were refused", wrote.Load())
}

//go:build !linux

package workspace

import (
	"io/fs"
	"os"
)

// noFollow: os.Root already refuses links out of the root; refusing a
// link in the last element is Linux's alone.
const noFollow = 0

// openBeneath has no kernel call to use here: the os.Root serves.
func (w *Workspace) openBeneath(string, int) (int, bool, error) { return -1, false, nil }

// opened cannot ask the kernel for the name of a descriptor here; the
// root's guarantee (nothing outside) stands alone.
func opened(*os.File, string) error { return nil }

// Links: the count of hard links is Linux's alone here.
func Links(fs.FileInfo) uint64 { return 1 }

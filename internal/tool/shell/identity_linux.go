package shell

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

var bootID = sync.OnceValue(func() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
})

// Lookup returns the identity of the live process pid; false when there
// is none (or only a zombie).
func Lookup(pid int) (Identity, bool) {
	if pid <= 0 {
		return Identity{}, false
	}
	si, ok := statOf(strconv.Itoa(pid))
	if !ok || !live(si.state) {
		return Identity{}, false
	}
	return Identity{PID: pid, Start: si.start, Boot: bootID()}, true
}

func endOrphan(id Identity, grace time.Duration) {
	_ = syscall.Kill(id.PID, syscall.SIGTERM)
	_ = syscall.Kill(-id.PID, syscall.SIGTERM)
	if waitUntil(func() bool { return !id.Alive() }, grace+supervisorSlack) {
		return
	}
	// The supervisor did not end its tree: kill the tree from here.
	for _, pid := range descendants(id.PID) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = syscall.Kill(-id.PID, syscall.SIGKILL)
	_ = syscall.Kill(id.PID, syscall.SIGKILL)
}

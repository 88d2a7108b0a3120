//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package gitguard

import (
	"syscall"
	"time"
)

func ctime(st *syscall.Stat_t) time.Time {
	return time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
}

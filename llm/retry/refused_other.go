//go:build !windows

package retry

import (
	"errors"
	"syscall"
)

// refused reports a refused connection.
func refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

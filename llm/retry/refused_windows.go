package retry

import (
	"errors"

	"golang.org/x/sys/windows"
)

// refused reports a refused connection. Windows reports it as
// WSAECONNREFUSED, which syscall.ECONNREFUSED (an errno Go invents there)
// does not match.
func refused(err error) bool { return errors.Is(err, windows.WSAECONNREFUSED) }

//go:build !unix

package regfile

// There are no FIFOs to wait on here, and the type check stands alone.
const (
	noWait   = 0
	noFollow = 0
)

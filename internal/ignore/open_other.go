//go:build !unix

package ignore

// openFlags: Read's type check alone stands here.
const openFlags = 0

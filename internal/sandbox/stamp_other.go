//go:build !unix

package sandbox

// stampFlags: the stamp's type check alone stands here.
const stampFlags = 0

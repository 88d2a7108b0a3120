//go:build !unix

package cli

// envOpenFlags: readEnvFile's type check alone stands here.
const envOpenFlags = 0

//go:build !unix

package gitconfig

// openNoWait: no FIFOs to wait on here.
const openNoWait = 0

//go:build !unix

package policy

// openNoWait: no FIFOs to wait on here.
const openNoWait = 0

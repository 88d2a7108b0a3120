//go:build !unix

package workspace

// nonBlock: there are no FIFOs in the file system to wait on here.
const nonBlock = 0

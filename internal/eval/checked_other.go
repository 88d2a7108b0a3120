//go:build !unix

package eval

// checkedFlags: readChecked's type check alone stands here.
const checkedFlags = 0

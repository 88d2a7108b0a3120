package shell

import "os"

func pidExists(pid int) bool {
	p, err := os.FindProcess(pid) // opens a handle: fails when there is no such process
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}

//go:build !unix

package main

import "os"

// maxRSSKB is unknown where there is no getrusage.
func maxRSSKB(*os.ProcessState) int64 { return 0 }

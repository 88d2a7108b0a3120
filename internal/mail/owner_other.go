//go:build !unix

package mail

import "strconv"

func startOf(int) string { return "" }

// running cannot tell here: every owner counts as alive, so a claim is
// recovered only by hand (godwit send --ack after a failure).
func running(int) bool { return true }

func parsePID(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

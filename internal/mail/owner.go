package mail

import (
	"crypto/rand"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Self names this process in claims and residency: "pid/start", where
// start is the process's start time where the system tells it, so a pid
// reused by a later process is not taken for the one that died.
func Self() string {
	pid := os.Getpid()
	return fmt.Sprintf("%d/%s", pid, startOf(pid))
}

// Alive reports whether the process an owner names still runs. Every
// process sharing a godwit database runs on one machine (SQLite's WAL
// needs shared memory), so a process id is enough to ask.
func Alive(owner string) bool {
	pidText, rest, ok := strings.Cut(owner, "/")
	if !ok {
		return false
	}
	start, _, _ := strings.Cut(rest, "/") // a Box adds "/" and its own tag
	pid := parsePID(pidText)
	if !running(pid) {
		return false
	}
	return start == "" || startOf(pid) == "" || startOf(pid) == start
}

// PID is the process id an owner names, 0 when it names none.
func PID(owner string) int {
	pidText, _, _ := strings.Cut(owner, "/")
	return parsePID(pidText)
}

// boxOwner names one Box: Self and a tag of its own, so that two boxes
// of one process (a session reloaded in an editor) never release each
// other's hold.
func boxOwner() string {
	return Self() + "/" + rand.Text()[:8]
}

// foreignAlive is Alive for another process's hold: within this process
// the newer box takes a session over.
func foreignAlive(owner string) bool {
	return PID(owner) != os.Getpid() && Alive(owner)
}

// parsePID reads a process id; 0 when s is none.
func parsePID(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

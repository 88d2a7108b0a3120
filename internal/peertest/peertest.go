// Package peertest decides what a test does when a peer program it
// drives is missing (tmux, node and an npm client or server, Chromium):
// on a developer's machine it skips, naming the install step; under CI
// (CI set, as .ci/run is run), whose script installs every peer, it
// fails, so a broken install step cannot pass as a row of skipped tests.
// Only tests use it. It imports none of godwit's packages.
package peertest

import (
	"fmt"
	"os"
	"testing"
)

// Missing ends the test for want of a peer: why says what is missing and
// how to install it.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	why := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("%s (CI installs every peer, so a missing one is a failure here, not a skip)", why)
	}
	t.Skip(why)
}

// Required reports whether a missing peer fails the test: under CI.
func Required() bool { return os.Getenv("CI") != "" }

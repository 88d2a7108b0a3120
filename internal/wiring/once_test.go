package wiring

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// The sandbox warns about the machine each time it is wrapped (per mode,
// and once more for read-only commands): the user reads it once.
func TestOnceHandlerDropsRepeats(t *testing.T) {
	var b bytes.Buffer
	log := slog.New(onceHandler{slog.NewTextHandler(&b, nil), &sync.Map{}})
	for range 3 {
		log.Warn("sandbox: not supported on windows")
		log.With("k", "v").Warn("sandbox: not supported on windows")
	}
	log.Warn("sandbox: another warning")
	if n := strings.Count(b.String(), "not supported"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, b.String())
	}
	if !strings.Contains(b.String(), "another warning") {
		t.Errorf("a different warning was dropped:\n%s", b.String())
	}
}

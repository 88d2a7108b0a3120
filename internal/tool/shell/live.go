package shell

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/godwit/godwit/tool"
)

// Live output: while a foreground command runs, its newest lines go to
// whoever hears the call's progress (the chat draws them under the
// call's line), at most every liveEvery; the model still reads the whole
// capped output once the command ends.
const (
	liveEvery = 250 * time.Millisecond
	liveLines = 5
	liveBytes = 2 << 10 // kept of the stream's end: the lines shown come from it
)

// liveTail keeps the end of a stream and says whether it changed.
type liveTail struct {
	mu      sync.Mutex
	buf     []byte
	changed bool
}

func (l *liveTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if len(l.buf) > 2*liveBytes { // amortise the copy
		l.buf = append(l.buf[:0], l.buf[len(l.buf)-liveBytes:]...)
	}
	l.changed = true
	return len(p), nil
}

// take returns the newest lines once after each change; a carriage
// return (a progress bar) keeps what was drawn after it.
func (l *liveTail) take() (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.changed {
		return "", false
	}
	l.changed = false
	lines := bytes.Split(bytes.TrimRight(l.buf, "\n"), []byte("\n"))
	lines = lines[max(len(lines)-liveLines, 0):]
	for i, ln := range lines {
		if j := bytes.LastIndexByte(bytes.TrimRight(ln, "\r"), '\r'); j >= 0 {
			lines[i] = ln[j+1:]
		}
	}
	return validUTF8(string(bytes.Join(lines, []byte("\n")))), true
}

// reportLive sends the tail's newest lines as the call's progress until
// done is closed; it starts nothing when nobody hears progress.
func reportLive(ctx context.Context, l *liveTail, done <-chan struct{}) {
	if !tool.Reports(ctx) {
		return
	}
	t := time.NewTicker(liveEvery)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			if out, ok := l.take(); ok {
				tool.ReportProgress(ctx, tool.Progress{Output: out})
			}
		}
	}
}

package shell

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
)

// jobLog is a job's log file: godwit copies the job's output (a pipe)
// into it and keeps at most limit bytes; a write past the limit first
// cuts the log to the last half of limit, from a line's start, behind a
// note of how much was dropped. It is used only through the descriptor
// it was created with, so a link swapped in for its name changes nothing.
type jobLog struct {
	mu      sync.Mutex // guards the fields below and the file's bytes
	f       *os.File
	limit   int64
	head    int64 // the note's bytes at the start of the file, 0 before any cut
	body    int64 // the output's bytes after the note
	dropped int64
}

// Write implements io.Writer.
func (l *jobLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	if l.head+l.body+int64(len(p)) > l.limit {
		half := l.limit / 2
		if int64(len(p)) > half {
			l.dropped += int64(len(p)) - half
			p = p[int64(len(p))-half:]
		}
		if err := l.cut(half - int64(len(p))); err != nil {
			return 0, err
		}
	}
	k, err := l.f.WriteAt(p, l.head+l.body)
	l.body += int64(k)
	if err != nil {
		return k, err
	}
	return n, nil
}

// cut keeps at most keep bytes of the output, from a line's start, after
// the note.
func (l *jobLog) cut(keep int64) error {
	keep = max(min(keep, l.body), 0)
	tail := make([]byte, keep)
	if _, err := l.f.ReadAt(tail, l.head+l.body-keep); err != nil && err != io.EOF {
		return err
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
		tail = tail[i+1:]
	}
	l.dropped += l.body - int64(len(tail))
	note := fmt.Sprintf("[godwit: %d bytes of earlier output dropped; a job's log keeps its last %d KiB]\n", l.dropped, l.limit>>10)
	if _, err := l.f.WriteAt(append([]byte(note), tail...), 0); err != nil {
		return err
	}
	l.head, l.body = int64(len(note)), int64(len(tail))
	return l.f.Truncate(l.head + l.body)
}

// lastLines is lastLinesOf the log.
func (l *jobLog) lastLines(n, maxBytes int) (string, int, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return lastLinesOf(l.f, n, maxBytes)
}

// lastLinesOf returns the last n lines of f, reading at most maxBytes
// from its end, so memory stays bounded whatever the log's size. got is
// how many lines text holds; more is true when the file has earlier
// content than text shows. A final line without a newline counts.
func lastLinesOf(f *os.File, n, maxBytes int) (text string, got int, more bool, err error) {
	fi, err := f.Stat()
	if err != nil {
		return "", 0, false, err
	}
	size := fi.Size()
	off := max(size-int64(maxBytes), 0)
	buf := make([]byte, size-off)
	k, err := f.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return "", 0, false, err
	}
	buf = buf[:k]
	if off > 0 {
		// The block starts mid-line: drop the partial line, unless it is
		// all there is.
		if i := bytes.IndexByte(buf, '\n'); i >= 0 && i < len(buf)-1 {
			buf = buf[i+1:]
		}
	}
	body := bytes.TrimSuffix(buf, []byte{'\n'})
	if len(body) == 0 {
		return "", 0, off > 0, nil
	}
	start, pos := len(body), len(body)
	for got < n {
		i := bytes.LastIndexByte(body[:pos], '\n')
		got++
		if i < 0 {
			start = 0
			break
		}
		start, pos = i+1, i
	}
	more = off > 0 || start > 0
	return validUTF8(string(buf[start:])), got, more, nil
}

package shell

import (
	"bytes"
	"io"
	"os"
)

// lastLines returns the last n lines of f, reading at most maxBytes from
// its end (by offset, so a writer's position is untouched), so memory
// stays bounded whatever the log's size. got is how many lines text
// holds; more is true when the file has earlier content than text shows.
// A final line without a newline counts.
func lastLines(f *os.File, n, maxBytes int) (text string, got int, more bool, err error) {
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

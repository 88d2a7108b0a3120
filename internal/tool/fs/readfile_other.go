//go:build !unix

package fs

import (
	"io"
	"os"
)

// readSmall reads a whole file into b (reused), for grep; errTooLarge
// past limit bytes.
func readSmall(path string, b []byte, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return b, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return b, err
	}
	if fi.Size() > limit {
		return b, errTooLarge
	}
	if cap(b) < int(fi.Size())+1 {
		b = make([]byte, 0, int(fi.Size())+4096)
	}
	b = b[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

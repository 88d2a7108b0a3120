//go:build unix

package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Every kind of thing a repository can put where godwit reads a file on
// its own: only a regular file within the bound is read, nothing waits,
// and the null device reads empty.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	null := filepath.Join(dir, "null")
	if err := os.Symlink(os.DevNull, null); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		path     string
		max      int64
		noFollow bool
		want     string // the content, or "error: <part of it>"
	}{
		{"a regular file", file, 10, false, "hello"},
		{"at the bound", file, 5, false, "hello"},
		{"over the bound", file, 4, false, "error: over 4 bytes"},
		{"a FIFO does not wait", fifo, 10, false, "error: not a regular file"},
		{"a device", zero, 10, false, "error: not a regular file"},
		{"the null device reads empty", null, 10, false, ""},
		{"a link followed", link, 10, false, "hello"},
		{"a link refused", link, 10, true, "error: "},
		{"missing", filepath.Join(dir, "none"), 10, false, "error: no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := Read
			if tt.noFollow {
				read = ReadNoFollow
			}
			data, err := read(tt.path, tt.max)
			got := string(data)
			if err != nil {
				got = "error: " + err.Error()
			}
			if !strings.HasPrefix(tt.want, "error: ") && got != tt.want || strings.HasPrefix(tt.want, "error: ") && !strings.Contains(got, strings.TrimPrefix(tt.want, "error: ")) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := Read(file, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the bound: %v, want ErrTooLarge", err)
	}
}

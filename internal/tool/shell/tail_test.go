package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLastLines(t *testing.T) {
	for _, tc := range []struct {
		name     string
		content  string
		n, max   int
		want     string
		got      int
		wantMore bool
	}{
		{"empty", "", 5, 100, "", 0, false},
		{"fewer lines than asked", "a\nb\n", 5, 100, "a\nb\n", 2, false},
		{"last two", "a\nb\nc\n", 2, 100, "b\nc\n", 2, true},
		{"no final newline", "a\nb\nc", 2, 100, "b\nc", 2, true},
		{"blank lines count", "a\n\n\n", 2, 100, "\n\n", 2, true},
		{"byte cap drops the partial line", "aaaa\nbbbb\ncccc\n", 10, 12, "bbbb\ncccc\n", 2, true},
		{"one huge line", strings.Repeat("z", 50) + "\n", 3, 10, strings.Repeat("z", 9) + "\n", 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			text, got, more, err := lastLines(f, tc.n, tc.max)
			if err != nil {
				t.Fatal(err)
			}
			if text != tc.want || got != tc.got || more != tc.wantMore {
				t.Errorf("lastLines = %q, %d, %v; want %q, %d, %v", text, got, more, tc.want, tc.got, tc.wantMore)
			}
		})
	}
}

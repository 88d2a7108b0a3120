package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
			text, got, more, err := lastLinesOf(f, tc.n, tc.max)
			if err != nil {
				t.Fatal(err)
			}
			if text != tc.want || got != tc.got || more != tc.wantMore {
				t.Errorf("lastLines = %q, %d, %v; want %q, %d, %v", text, got, more, tc.want, tc.got, tc.wantMore)
			}
		})
	}
}

// TestJobLogKeepsItsTail: past its limit a log keeps its last half,
// from a line's start, behind a note of all that was dropped, however
// the output comes (small writes, one write larger than the limit).
func TestJobLogKeepsItsTail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
	}{
		{"lines", slices.Repeat([]string{"0123456789abcdef\n"}, 1000)},
		{"one huge write", []string{strings.Repeat("x", 5000) + "\nlast line\n"}},
		{"no newlines", []string{strings.Repeat("y", 700), strings.Repeat("z", 700), strings.Repeat("w", 700)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.OpenFile(filepath.Join(t.TempDir(), "j1.log"), os.O_RDWR|os.O_CREATE, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			const limit = 1024
			l := &jobLog{f: f, limit: limit}
			total := 0
			var all strings.Builder
			for _, w := range tc.writes {
				if n, err := l.Write([]byte(w)); err != nil || n != len(w) {
					t.Fatalf("Write = %d, %v", n, err)
				}
				total += len(w)
				all.WriteString(w)
			}
			b, err := os.ReadFile(f.Name())
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > limit {
				t.Errorf("the log holds %d bytes, over its limit %d", len(b), limit)
			}
			note, body, _ := strings.Cut(string(b), "\n")
			var dropped int
			if _, err := fmt.Sscanf(note, "[godwit: %d bytes of earlier output dropped;", &dropped); err != nil {
				t.Fatalf("no note first: %q (%v)", note, err)
			}
			if dropped+len(body) != total || !strings.HasSuffix(all.String(), body) {
				t.Errorf("dropped %d + kept %d != written %d, or the kept part is not the end of the output", dropped, len(body), total)
			}
			text, _, _, err := l.lastLines(2, 100)
			if err != nil || !strings.HasSuffix(all.String(), text) {
				t.Errorf("lastLines = %q, %v", text, err)
			}
		})
	}
}

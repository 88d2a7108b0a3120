package shell

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestCapture(t *testing.T) {
	numbered := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "line %04d\n", i)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name  string
		input string
		limit int
		chunk int // write size; 0 writes all at once
		cut   bool
		head  string
		tail  string
	}{
		{"fits", "a\nb\n", 100, 0, false, "a\nb\n", "a\nb\n"},
		{"exactly the limit", strings.Repeat("x", 100), 100, 7, false, "xxx", "xxx"},
		{"lines cut at boundaries", numbered(1000), 200, 0, true, "line 0001\n", "line 1000\n"},
		{"small writes", numbered(1000), 200, 3, true, "line 0001\n", "line 1000\n"},
		{"one long line", strings.Repeat("y", 5000), 100, 64, true, "yyyy", "yyyy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCapture(tc.limit)
			in := tc.input
			for in != "" {
				k := len(in)
				if tc.chunk > 0 {
					k = min(tc.chunk, k)
				}
				if n, err := c.Write([]byte(in[:k])); n != k || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
				in = in[k:]
			}
			got := c.String()
			if !strings.HasPrefix(got, tc.head) || !strings.HasSuffix(got, tc.tail) {
				t.Errorf("got %q, want prefix %q and suffix %q", got, tc.head, tc.tail)
			}
			note := regexp.MustCompile(`(?m)^\[… (\d+) bytes, (\d+) lines cut …\]\n`)
			mm := note.FindStringSubmatch(got)
			if (mm != nil) != tc.cut {
				t.Fatalf("cut note present = %v, want %v: %q", mm != nil, tc.cut, got)
			}
			if !tc.cut {
				if got != tc.input {
					t.Errorf("got %q, want the input unchanged", got)
				}
				return
			}
			// What is shown plus what was cut is exactly the input.
			i := strings.Index(got, mm[0])
			head, tail := got[:i], got[i+len(mm[0]):]
			cutBytes, _ := strconv.Atoi(mm[1])
			cutLines, _ := strconv.Atoi(mm[2])
			// A head cut mid-line gets a newline before the note.
			shownHead := head
			if !strings.HasPrefix(tc.input, head) {
				shownHead = strings.TrimSuffix(head, "\n")
			}
			middle := tc.input[len(shownHead) : len(tc.input)-len(tail)]
			if !strings.HasPrefix(tc.input, shownHead) || !strings.HasSuffix(tc.input, tail) {
				t.Fatalf("head or tail is not from the input: %q", got)
			}
			if len(middle) != cutBytes || strings.Count(middle, "\n") != cutLines {
				t.Errorf("note says %d bytes, %d lines; the middle has %d bytes, %d lines",
					cutBytes, cutLines, len(middle), strings.Count(middle, "\n"))
			}
			if len(head)+len(tail) > tc.limit+1 {
				t.Errorf("kept %d bytes, limit %d", len(head)+len(tail), tc.limit)
			}
		})
	}
}

func TestCaptureInvalidUTF8(t *testing.T) {
	c := newCapture(100)
	c.Write([]byte("ok \xff\xfe end"))
	if got := c.String(); got != "ok \uFFFD end" {
		t.Errorf("got %q", got)
	}
}

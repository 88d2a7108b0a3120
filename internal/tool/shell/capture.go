package shell

import (
	"bytes"
	"fmt"
	"strings"
)

// capture keeps the head and the tail of a stream within limit bytes,
// counting what falls out of the middle. Memory stays at about 2*limit
// whatever the stream's size. Not safe for concurrent use.
type capture struct {
	headMax, tailMax int
	head, tail       []byte
	total            int64 // bytes written
	dropped          int64 // bytes dropped from the middle
	droppedNL        int64 // newlines among them
}

func newCapture(limit int) *capture {
	h := limit / 2
	return &capture{headMax: h, tailMax: limit - h}
}

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	if room := c.headMax - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*c.tailMax { // amortise the copy
		c.drop(len(c.tail) - c.tailMax)
	}
	return n, nil
}

// drop removes k bytes from the front of the tail.
func (c *capture) drop(k int) {
	c.dropped += int64(k)
	c.droppedNL += int64(bytes.Count(c.tail[:k], []byte{'\n'}))
	c.tail = append(c.tail[:0], c.tail[k:]...)
}

// String returns the kept text; when the middle was cut, a note says how
// many bytes and lines are missing. Cuts are moved to line boundaries
// when one is near, so no half lines show.
func (c *capture) String() string {
	if len(c.tail) > c.tailMax {
		c.drop(len(c.tail) - c.tailMax)
	}
	if c.dropped == 0 {
		return validUTF8(string(c.head) + string(c.tail))
	}
	head, tail := c.head, c.tail
	cutBytes, cutNL := c.dropped, c.droppedNL
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 && len(head)-i < len(head)/4 {
		cutBytes += int64(len(head) - i - 1)
		head = head[:i+1]
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/4 {
		cutBytes += int64(i + 1)
		cutNL++
		tail = tail[i+1:]
	}
	var b strings.Builder
	b.Write(head)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[… %d bytes, %d lines cut …]\n", cutBytes, cutNL)
	b.Write(tail)
	return validUTF8(b.String())
}

// validUTF8 replaces invalid bytes (binary output, a rune split by a cut)
// so the text survives JSON encoding as the model will see it.
func validUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// Package sse reads a server-sent event stream, the framing every model
// API streams in: "event:" and "data:" lines, an event per blank line.
// The adapters under llm share it. It imports none of godwit's packages.
package sse

import (
	"bufio"
	"bytes"
	"io"
)

// MaxLine bounds one line of the stream (a data line holds a whole JSON
// event); a longer one fails with bufio.ErrTooLong.
const MaxLine = 32 << 20

// Event is one dispatched event: its type ("" when the stream names
// none) and its data lines joined by newlines.
type Event struct {
	Type string
	Data []byte
}

// Reader reads events from a stream.
type Reader struct {
	sc  *bufio.Scanner
	typ string
	buf bytes.Buffer
	has bool // a data line was seen since the last event
}

// NewReader reads events from r.
func NewReader(r io.Reader) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, MaxLine)
	return &Reader{sc: sc}
}

// Next returns the next event: io.EOF when the stream ended cleanly, or
// the read's error (io.ErrUnexpectedEOF for a body cut short). An event
// whose blank line never came is dispatched at a clean end.
func (r *Reader) Next() (Event, error) {
	for r.sc.Scan() {
		line := r.sc.Bytes()
		if len(line) == 0 {
			if ev, ok := r.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			r.typ = string(value)
		case "data":
			if r.has {
				r.buf.WriteByte('\n')
			}
			r.buf.Write(value)
			r.has = true
		}
		// "id", "retry" and comments (":" lines) carry nothing here.
	}
	if err := r.sc.Err(); err != nil {
		return Event{}, err
	}
	if ev, ok := r.dispatch(); ok {
		return ev, nil
	}
	return Event{}, io.EOF
}

func (r *Reader) dispatch() (Event, bool) {
	if !r.has {
		r.typ = ""
		return Event{}, false
	}
	ev := Event{Type: r.typ, Data: bytes.Clone(r.buf.Bytes())}
	r.typ, r.has = "", false
	r.buf.Reset()
	return ev, true
}

package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReader(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Event
		err      error
	}{
		{"typed events", "event: a\ndata: {\"x\":1}\n\nevent: b\ndata: 2\n\n", []Event{{"a", []byte(`{"x":1}`)}, {"b", []byte("2")}}, io.EOF},
		{"untyped, CRLF, comments, no space", ": ping\r\ndata:1\r\n\r\n", []Event{{"", []byte("1")}}, io.EOF},
		{"data lines joined", "data: a\ndata: b\n\n", []Event{{"", []byte("a\nb")}}, io.EOF},
		{"a type without data is no event", "event: x\n\ndata: y\n\n", []Event{{"", []byte("y")}}, io.EOF},
		{"the last event without its blank line", "data: [DONE]", []Event{{"", []byte("[DONE]")}}, io.EOF},
		{"empty", "", nil, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.in))
			var got []Event
			var err error
			for {
				var ev Event
				if ev, err = r.Next(); err != nil {
					break
				}
				got = append(got, ev)
			}
			if !errors.Is(err, tt.err) || len(got) != len(tt.want) {
				t.Fatalf("got %q, %v; want %q, %v", got, err, tt.want, tt.err)
			}
			for i := range got {
				if got[i].Type != tt.want[i].Type || string(got[i].Data) != string(tt.want[i].Data) {
					t.Errorf("event %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// A body cut short is an error, not a clean end that would dispatch the
// half event.
func TestReaderCut(t *testing.T) {
	r := NewReader(io.MultiReader(strings.NewReader("data: {\"a\":"), iotest.ErrReader(io.ErrUnexpectedEOF)))
	if _, err := r.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("err = %v, want unexpected EOF", err)
	}
}

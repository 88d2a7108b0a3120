package sse

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

// trickle yields a byte per read, waiting gap before each, then EOF.
type trickle struct {
	n   int
	gap time.Duration
	ctx context.Context
}

func (t *trickle) Read(p []byte) (int, error) {
	if t.n == 0 {
		return 0, io.EOF
	}
	select {
	case <-time.After(t.gap):
	case <-t.ctx.Done():
		return 0, t.ctx.Err()
	}
	t.n--
	p[0] = '\n'
	return 1, nil
}

func (t *trickle) Close() error { return nil }

// A stream that keeps sending outlives its timeout; one that stops is
// cut with an *IdleError.
func TestIdle(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		gap  time.Duration
		idle bool
	}{
		{"sending for longer than the timeout", 100, 5 * time.Millisecond, false},
		{"silent", 1, time.Hour, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, w := Watch(context.Background(), 200*time.Millisecond)
			defer w.Stop()
			_, err := io.Copy(io.Discard, w.Body(&trickle{n: tc.n, gap: tc.gap, ctx: ctx}))
			err = w.Err(err)
			var ie *IdleError
			if got := errors.As(err, &ie); got != tc.idle {
				t.Fatalf("err = %v, want idle %v", err, tc.idle)
			}
			if tc.idle && ie.Error() != "the server sent nothing for 200ms" {
				t.Errorf("message %q", ie.Error())
			}
		})
	}
}

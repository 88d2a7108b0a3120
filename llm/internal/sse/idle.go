package sse

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// DefaultIdle is how long a stream may send nothing, its headers
// included, before it counts as dropped: long enough for a slow first
// token, short enough that a stalled connection does not hang a turn.
const DefaultIdle = 5 * time.Minute

// IdleError is a stream that sent nothing for After.
type IdleError struct{ After time.Duration }

func (e *IdleError) Error() string {
	return fmt.Sprintf("the server sent nothing for %s", e.After)
}

// Idle watches one request for silence. Its context is cancelled when no
// read of the body (or, before that, no response) comes within the
// timeout; Err then reports an *IdleError in place of the cancellation.
type Idle struct {
	after  time.Duration
	timer  *time.Timer
	cancel context.CancelFunc
	fired  atomic.Bool
}

// Watch starts watching: send the request with the returned context,
// read its body through Body, and Stop when done. after <= 0 means
// DefaultIdle.
func Watch(ctx context.Context, after time.Duration) (context.Context, *Idle) {
	if after <= 0 {
		after = DefaultIdle
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &Idle{after: after, cancel: cancel}
	w.timer = time.AfterFunc(after, func() {
		w.fired.Store(true)
		cancel()
	})
	return ctx, w
}

// Body returns r, each read of which restarts the timeout.
func (w *Idle) Body(r io.ReadCloser) io.ReadCloser { return &watched{r, w} }

// Stop releases the watch.
func (w *Idle) Stop() {
	w.timer.Stop()
	w.cancel()
}

// Err is err, or an *IdleError in its place when the timeout ended the
// request (err is then only the cancellation that ended it).
func (w *Idle) Err(err error) error {
	if err == nil || !w.fired.Load() {
		return err
	}
	return &IdleError{After: w.after}
}

type watched struct {
	io.ReadCloser
	w *Idle
}

func (r *watched) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 && !r.w.fired.Load() {
		r.w.timer.Reset(r.w.after)
	}
	return n, err
}

package mail

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
)

// FollowOptions configure Follow and Await.
type FollowOptions struct {
	// Poll is the wake-up interval; 0 means DefaultPoll.
	Poll time.Duration
	// Since skips the receipts up to this id (0: yield them all).
	Since int64
}

// Follow yields message id's receipts as they are written, until the
// message reaches a final state (answered, failed, expired) or ctx ends
// (then the last pair carries ctx's error). While it follows, a claim
// whose process died is recovered, so the follower learns of it.
func Follow(ctx context.Context, st *store.Store, id int64, opts FollowOptions) iter.Seq2[store.Receipt, error] {
	return func(yield func(store.Receipt, error) bool) {
		w, err := st.NewWatch(ctx)
		if err != nil {
			yield(store.Receipt{}, fmt.Errorf("mail: %w", err))
			return
		}
		last := opts.Since
		p := newPoller(w, opts.Poll)
		check := true // read at once, then after each change
		var cur store.Mail
		lastAsked := time.Now()
		for {
			if check {
				m, err := st.MailByID(ctx, id)
				if err != nil {
					yield(store.Receipt{}, fmt.Errorf("mail: %w", err))
					return
				}
				cur = m
				if _, _, err := recoverOne(ctx, st, m); err != nil {
					yield(store.Receipt{}, err)
					return
				}
				rs, err := st.Receipts(ctx, id)
				if err != nil {
					yield(store.Receipt{}, fmt.Errorf("mail: %w", err))
					return
				}
				for _, r := range rs {
					if r.ID <= last {
						continue
					}
					last = r.ID
					if !yield(r, nil) {
						return
					}
					if store.MailState(r.State).Final() {
						return
					}
				}
			}
			if check, err = p.next(ctx); err != nil {
				yield(store.Receipt{}, err)
				return
			}
			// A claimer that dies writes nothing: ask about it every second.
			if !check && cur.State == store.MailDelivered && time.Since(lastAsked) >= time.Second {
				lastAsked = time.Now()
				check = !Alive(cur.ClaimedBy)
			}
		}
	}
}

// AwaitOptions configure Await.
type AwaitOptions struct {
	FollowOptions
	// Timeout bounds the wait; 0 waits until ctx ends.
	Timeout time.Duration
	// Expire expires the message when the wait times out while it is
	// still queued, so it never runs after its sender stopped waiting.
	Expire bool
	// OnReceipt sees each receipt as it comes.
	OnReceipt func(store.Receipt)
}

// Await waits until message id is answered (it returns the message),
// fails or expires (the message and an error saying why), or the wait
// ends: ErrTimeout, or ctx's error. A message held behind its sender's
// failed message returns at once with ErrHeld: it cannot be delivered
// until someone acknowledges that failure.
func Await(ctx context.Context, st *store.Store, id int64, opts AwaitOptions) (store.Mail, error) {
	wctx := ctx
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	m, err := st.MailByID(ctx, id)
	if err != nil {
		return m, fmt.Errorf("mail: %w", err)
	}
	if err := held(ctx, st, m); err != nil {
		return m, err
	}
	var waitErr error
	for r, err := range Follow(wctx, st, id, opts.FollowOptions) {
		if err != nil {
			waitErr = err
			break
		}
		if opts.OnReceipt != nil {
			opts.OnReceipt(r)
		}
	}
	m, err = st.MailByID(context.WithoutCancel(ctx), id)
	if err != nil {
		return m, fmt.Errorf("mail: %w", err)
	}
	switch {
	case m.State == store.MailAnswered:
		return m, nil
	case m.State == store.MailFailed:
		return m, fmt.Errorf("mail: %s failed: %s", ID(id), m.Error)
	case m.State == store.MailExpired:
		return m, fmt.Errorf("mail: %s expired: %s", ID(id), m.Error)
	case errors.Is(waitErr, context.DeadlineExceeded) && ctx.Err() == nil:
		if opts.Expire && m.State == store.MailQueued {
			why := fmt.Sprintf("its sender stopped waiting after %s, before any turn took it", opts.Timeout)
			if got, ok, err := st.ExpireMail(context.WithoutCancel(ctx), id, why); err == nil && ok {
				_ = agent.RecordMail(context.WithoutCancel(ctx), st, agent.EventMailExpired, got, time.Now())
				return got, fmt.Errorf("mail: %s expired: %s", ID(id), why)
			}
		}
		return m, fmt.Errorf("%w: %s is still %s after %s", ErrTimeout, ID(id), m.State, opts.Timeout)
	}
	if waitErr == nil {
		waitErr = fmt.Errorf("mail: %s is %s", ID(id), m.State)
	}
	return m, waitErr
}

// held returns ErrHeld, naming the failure, when m waits behind one.
func held(ctx context.Context, st *store.Store, m store.Mail) error {
	if m.State != store.MailQueued {
		return nil
	}
	h, ok, err := st.HeldBy(ctx, m)
	if err != nil || !ok {
		return err
	}
	return fmt.Errorf("%w: %s waits until the failure of %s (its sender's earlier message to %s) is acknowledged: %s; acknowledge it with `godwit send --ack %s`",
		ErrHeld, ID(m.ID), ID(h.ID), m.To, h.Error, ID(h.ID))
}

package cli

import (
	"context"
	"errors"
	"sync"

	"github.com/godwit/godwit/internal/mail"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/wiring"
)

// chatMail makes the chat its session's resident: it holds the session
// (refusing one another process keeps open), claims its mail for turns
// (tui.MailSource), and reports mail as it arrives. It has a store of its
// own: the chat's engines, and their stores, change with :model.
type chatMail struct {
	st *store.Store

	mu  sync.Mutex
	box *mail.Box
}

// openChatMail opens the chat's mail and, when the chat resumes a
// session, holds it at once.
func openChatMail(ctx context.Context, opts *ChatOptions) (*chatMail, error) {
	st, err := store.Open(ctx, wiring.DBPath(opts.Home))
	if err != nil {
		return nil, err
	}
	c := &chatMail{st: st}
	if opts.Session != "" {
		sess, err := resolveSession(ctx, st, opts.Session, workspaceRoot(opts.Workspace))
		if err == nil {
			_, err = c.hold(ctx, sess.ID)
		}
		if errors.Is(err, store.ErrResident) {
			st.Close()
			return nil, err
		}
		// Any other error is the controller's to report, as before.
	}
	return c, nil
}

// hold makes the chat the resident of session id, giving up the one it
// held before.
func (c *chatMail) hold(ctx context.Context, id string) (*mail.Box, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.box != nil && c.box.Session() == id {
		return c.box, nil
	}
	if c.box != nil {
		_ = c.box.Close()
		c.box = nil
	}
	b, err := mail.Open(ctx, c.st, id, mail.Options{Command: "chat"})
	if err != nil {
		return nil, err
	}
	c.box = b
	return b, nil
}

// Claim implements tui.MailSource.
func (c *chatMail) Claim(ctx context.Context, id string) ([]store.Mail, error) {
	b, err := c.hold(ctx, id)
	if err != nil {
		return nil, err
	}
	if ok, err := c.st.Claimable(ctx, id); err != nil || !ok {
		return nil, err
	}
	return b.Claim(ctx)
}

// Hold implements tui.MailSource.
func (c *chatMail) Hold(ctx context.Context, id string) error {
	_, err := c.hold(ctx, id)
	return err
}

// Release implements tui.MailSource.
func (c *chatMail) Release(ctx context.Context, id string, ms []store.Mail, why error) {
	c.mu.Lock()
	b := c.box
	c.mu.Unlock()
	if b != nil && b.Session() == id {
		b.Release(ctx, ms, why)
	}
}

// watch reports mail queued for the chat's session as it arrives, while
// the chat holds that session.
func (c *chatMail) watch(ctx context.Context, session func() string, arrived func(store.Mail)) {
	_ = mail.Arrivals(ctx, c.st, session, 0, func(m store.Mail) {
		if _, err := c.hold(ctx, m.To); err == nil {
			arrived(m)
		}
	})
}

// Close gives the session up and closes the store.
func (c *chatMail) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	if c.box != nil {
		errs = append(errs, c.box.Close())
		c.box = nil
	}
	return errors.Join(append(errs, c.st.Close())...)
}

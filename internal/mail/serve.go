package mail

import (
	"context"
	"errors"
	"fmt"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
)

// RunFunc runs one turn of the box's session with the claimed messages
// (agent.RunInput.Mail).
type RunFunc func(ctx context.Context, ms []store.Mail) (agent.Result, error)

// ServeOptions configure Serve.
type ServeOptions struct {
	// TurnContext is the parent of every turn; nil means ctx, so ending
	// ctx cancels the running turn too. With another, a running turn
	// finishes after ctx ends (a first Ctrl-C) unless TurnContext ends.
	TurnContext context.Context
	// OnTurn hears of each turn when it ends.
	OnTurn func(ms []store.Mail, res agent.Result, err error)
}

// Serve answers the box's mail until ctx ends: it claims what is
// claimable, runs it as one turn, and waits for more. What arrives during
// a turn is claimed at its end, together, as the next turn. It returns
// nil once ctx ends, or an error when a turn could not start (the claims
// are queued again).
func Serve(ctx context.Context, b *Box, run RunFunc, opts ServeOptions) error {
	turnCtx := opts.TurnContext
	if turnCtx == nil {
		turnCtx = ctx
	}
	for {
		if ctx.Err() != nil {
			return nil
		}
		ms, err := b.Claim(ctx)
		if ctx.Err() != nil {
			b.Release(ctx, ms, errors.New("the resident stopped"))
			return nil
		}
		if err != nil {
			return err
		}
		if len(ms) == 0 {
			if err := b.Wait(ctx); err != nil && ctx.Err() == nil {
				return err
			}
			continue
		}
		res, err := run(turnCtx, ms)
		if res.Turn == 0 {
			b.Release(ctx, ms, err)
			if err == nil {
				err = errors.New("the engine ran no turn")
			}
			return fmt.Errorf("mail: serving %s: %w", b.session, err)
		}
		if opts.OnTurn != nil {
			opts.OnTurn(ms, res, err)
		}
	}
}

package tui

import (
	"context"
	"fmt"
	"io"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/godwit/godwit/internal/termsafe"
)

// RunOptions are the terminal the chat runs on.
type RunOptions struct {
	In  io.Reader
	Out io.Writer
	// History is the input history kept across chats (LoadHistory).
	History *History
	// Version is godwit's, for the banner.
	Version string
}

// Run shows the chat until the user leaves or ctx ends. A running turn is
// cancelled on the way out; the caller closes the controller after Run
// returns, which waits for that turn to be recorded.
func Run(ctx context.Context, ctl *Controller, b *Bridge, opts RunOptions) error {
	m := NewModel(ctx, ctl, ModelOptions{Theme: DarkTheme(), History: opts.History, Version: opts.Version})
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.In != nil {
		popts = append(popts, tea.WithInput(opts.In))
	}
	if opts.Out != nil {
		popts = append(popts, tea.WithOutput(opts.Out))
	}
	p := tea.NewProgram(m, popts...)
	pumpCtx, stopPump := context.WithCancel(ctx)
	go b.pump(pumpCtx, p.Send)
	_, err := p.Run()
	stopPump()
	b.Close()
	if m.cancel != nil {
		m.cancel()
	}
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("tui: %w", err)
	}
	// The full screen is gone: the conversation stays in the terminal's
	// own screen and scrollback, to read and copy, as Claude Code and
	// Codex leave theirs.
	if opts.Out != nil {
		lines := m.t.printed(m.width)
		_, _ = io.WriteString(opts.Out, termsafe.Styled(strings.Join(lines, "\n"))+"\n")
	}
	return nil
}

package cli

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/godwit/godwit/tool"
)

// runApprover gates writes and commands for `run`: --yes approves all;
// --allow-write asks on the terminal; otherwise godwit is read-only.
func runApprover(opts *RunOptions) tool.Approver {
	switch {
	case opts.Yes:
		return tool.AllowAll{}
	case opts.AllowWrite && opts.IO.InTTY:
		return &ttyApprover{io: opts.IO, in: bufio.NewReader(opts.IO.In)}
	case opts.AllowWrite:
		return denyAll("--allow-write asks before each write, but stdin is not a terminal to ask on; pass --yes to approve every write and command")
	default:
		return denyAll("godwit is read-only; run it with --allow-write to approve each write or command, or --yes to approve all")
	}
}

type denyAll string

func (d denyAll) Approve(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
	return tool.Decision{Allow: false, Reason: string(d)}, nil
}

// ttyApprover asks on the terminal: y approves once, a approves this tool
// for the rest of the run, anything else denies.
type ttyApprover struct {
	io *IOStreams
	in *bufio.Reader

	mu     sync.Mutex
	always map[string]bool
}

func (a *ttyApprover) Approve(ctx context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.always[req.Tool] {
		return tool.Decision{Allow: true, Reason: "approved for the session"}, nil
	}
	fmt.Fprintf(a.io.ErrOut, "\n%s\n", req.Access.Summary)
	if req.Access.Preview != "" {
		fmt.Fprintln(a.io.ErrOut, req.Access.Preview)
	}
	fmt.Fprint(a.io.ErrOut, "Allow? [y]es / [n]o / [a]lways for "+req.Tool+": ")
	type answer struct {
		s   string
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		s, err := a.in.ReadString('\n')
		ch <- answer{s, err}
	}()
	var ans answer
	select {
	case <-ctx.Done():
		return tool.Decision{}, ctx.Err()
	case ans = <-ch:
	}
	if ans.err != nil && ans.s == "" {
		return tool.Decision{Allow: false, Reason: "no answer on the terminal"}, nil
	}
	switch strings.ToLower(strings.TrimSpace(ans.s)) {
	case "y", "yes":
		return tool.Decision{Allow: true, Manual: true}, nil
	case "a", "always":
		if a.always == nil {
			a.always = map[string]bool{}
		}
		a.always[req.Tool] = true
		return tool.Decision{Allow: true, Manual: true}, nil
	}
	return tool.Decision{Allow: false, Reason: "the user said no"}, nil
}

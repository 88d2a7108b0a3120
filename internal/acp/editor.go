package acp

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/internal/tool/shell"
)

// editorFiles reads and writes files through the client
// (fs/read_text_file, fs/write_text_file), so the file tools see and
// change the editor's buffers, saved or not.
type editorFiles struct{ s *session }

var _ fs.Files = editorFiles{}

// ReadFile asks the editor. When it cannot answer (a file it does not
// know, or not text), the file is left to the tools (fs.ErrNotServed),
// which read it through the workspace's root: a read of godwit's own by
// path here would follow a link swapped in since the path was judged.
func (f editorFiles) ReadFile(ctx context.Context, abs string) ([]byte, error) {
	resp, err := f.s.srv.client().ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(f.s.id), Path: abs})
	if err == nil {
		return []byte(resp.Content), nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	f.s.srv.log.Debug("acp: fs/read_text_file failed; read the disk", "path", abs, "err", err)
	return nil, fmt.Errorf("acp: the editor could not read %s (%v): %w", abs, err, fs.ErrNotServed)
}

// WriteFile asks the editor to write text. Content that is not UTF-8
// cannot travel as a JSON string, so it is left to the tools
// (fs.ErrNotServed), which write it through the workspace's root.
func (f editorFiles) WriteFile(ctx context.Context, abs string, data []byte) error {
	if !utf8.Valid(data) {
		return fmt.Errorf("acp: %s is not UTF-8 text: %w", abs, fs.ErrNotServed)
	}
	_, err := f.s.srv.client().WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(f.s.id), Path: abs, Content: string(data)})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("acp: the editor could not write %s: %w", abs, err)
	}
	return nil
}

// editorTerminal runs foreground commands in a terminal of the client
// (terminal/*), shown live as the content of the shell_exec call.
type editorTerminal struct{ s *session }

var _ shell.Terminal = editorTerminal{}

// Run implements shell.Terminal: create, wait (or kill when ctx ends),
// read the output, release. The terminal stays visible in the editor
// after release.
func (t editorTerminal) Run(ctx context.Context, cmd *exec.Cmd, limit int) (shell.TerminalResult, error) {
	c := t.s.srv.client()
	sid := sdk.SessionId(t.s.id)
	req := sdk.CreateTerminalRequest{SessionId: sid, Command: cmd.Path, Args: cmd.Args[1:], OutputByteLimit: sdk.Ptr(limit)}
	if cmd.Dir != "" {
		req.Cwd = sdk.Ptr(cmd.Dir)
	}
	for _, kv := range cmd.Env {
		if name, value, ok := strings.Cut(kv, "="); ok && name != "" {
			req.Env = append(req.Env, sdk.EnvVariable{Name: name, Value: value})
		}
	}
	created, err := c.CreateTerminal(ctx, req)
	if err != nil {
		return shell.TerminalResult{}, err
	}
	id := created.TerminalId
	bg := context.WithoutCancel(ctx) // the cleanup must run after a cancel
	defer func() {
		if _, err := c.ReleaseTerminal(bg, sdk.ReleaseTerminalRequest{SessionId: sid, TerminalId: id}); err != nil {
			t.s.srv.log.Warn("acp: terminal/release", "terminal", id, "err", err)
		}
	}()
	t.s.attachTerminal(id)

	exit, werr := c.WaitForTerminalExit(ctx, sdk.WaitForTerminalExitRequest{SessionId: sid, TerminalId: id})
	if werr != nil {
		if ctx.Err() == nil {
			return shell.TerminalResult{}, werr
		}
		if _, err := c.KillTerminal(bg, sdk.KillTerminalRequest{SessionId: sid, TerminalId: id}); err != nil {
			t.s.srv.log.Warn("acp: terminal/kill", "terminal", id, "err", err)
		}
	}
	out, err := c.TerminalOutput(bg, sdk.TerminalOutputRequest{SessionId: sid, TerminalId: id})
	if err != nil {
		return shell.TerminalResult{}, err
	}
	res := shell.TerminalResult{Output: out.Output, Truncated: out.Truncated}
	if werr != nil {
		return res, nil // killed: no exit status
	}
	res.ExitCode = exit.ExitCode
	if exit.Signal != nil {
		res.Signal = *exit.Signal
	}
	return res, nil
}

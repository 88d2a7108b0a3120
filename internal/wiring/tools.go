package wiring

import (
	"context"
	"fmt"

	"github.com/godwit/godwit/internal/mail"
	"github.com/godwit/godwit/internal/memory"
	"github.com/godwit/godwit/internal/snapshot"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/internal/tool/recall"
	"github.com/godwit/godwit/internal/tool/shell"
	"github.com/godwit/godwit/tool"
)

// shells are the session's shell_exec and the sub-agent's.
type shells struct {
	// main is the session's shell; its kind goes in the system prompt.
	main *shell.Shell
	// tool is main, watched for snapshots and behind the git guard;
	// --verify runs through it too.
	tool tool.Tool
	// sub is the sub-agent's shell_exec: foreground only, judged by its
	// read-only policy and run in a read-only sandbox.
	sub tool.Tool
}

// newShells builds both shells on the guard's sandbox and private temp
// folder. Each one's closer runs the git guard's last check before the
// shell stops (closers run in reverse).
func (b *build) newShells() shells {
	opts, root, g := b.opts, b.ws.Root(), b.guard
	secrets, track := keyNames(b.cat, b.cfg), trackProcs(b.env.Store, opts.Logger)
	sh := shell.New(shell.Options{Workdir: root, Logger: opts.Logger, Terminal: opts.Terminal, LogLimit: g.logLimit,
		Env: []string{"TMPDIR=" + g.tmp}, Secrets: secrets, Wrap: g.wrap, ReadOnlyWrap: g.readOnlyWrap, WriteWrap: g.writeWrap, Track: track})
	shellTool, lastCheck := g.guardShell(snapshot.WatchTool(sh, g.watcher), sh)
	subShell := shell.New(shell.Options{Workdir: root, Logger: opts.Logger, NoJobs: true,
		Env: []string{"TMPDIR=" + g.tmp}, Secrets: secrets, Wrap: g.readOnlyWrap, Track: track})
	subTool, subCheck := g.guardShell(subShell, subShell)
	b.env.closers = append(b.env.closers, lastCheck, sh.Close, subCheck, subShell.Close)
	return shells{main: sh, tool: &noticed{shellTool.(accessTool), &g.refused}, sub: &noticed{subTool.(accessTool), &g.refused}}
}

// memoryParts are long-term memory's pieces: where skills live, the
// source of rules and memory files per segment, and search_memory.
type memoryParts struct {
	places memory.SkillPlaces
	source *memory.Source
	search tool.Tool
}

// newMemory builds memory over the store, with the embeddings client
// config names, if any. The user's own skill folders (and CODEX_HOME)
// count only when opts.UserHome is set.
func (b *build) newMemory() (memoryParts, error) {
	opts, root, st := b.opts, b.ws.Root(), b.env.Store
	places := memory.SkillPlaces{Workspace: root, Home: opts.Home, UserHome: opts.UserHome}
	if opts.UserHome != "" {
		places.CodexHome = opts.Getenv("CODEX_HOME")
	}
	source := memory.NewSource(memory.SourceOptions{Workspace: root, Home: opts.Home, UserHome: places.UserHome, CodexHome: places.CodexHome, Store: st, Logger: opts.Logger})
	embedder, err := newEmbedder(b.cfg.Memory.Embeddings, opts.Getenv)
	if err != nil {
		return memoryParts{}, err
	}
	searcher, err := memory.NewSearcher(memory.SearchOptions{Store: st, Workspace: root, Embedder: embedder, Logger: opts.Logger})
	if err != nil {
		return memoryParts{}, fmt.Errorf("wiring: %w", err)
	}
	return memoryParts{places: places, source: source, search: memory.NewSearchTool(searcher)}, nil
}

// tools registers the session's own tools, in the order of their
// table: the file tools, shell_exec, the plan, recall, search_memory,
// the skill tool where there are skills, the sub-agent, and send_message
// where mail is in use. MCP's and the tool_call proxy come later
// (build.extensions).
func (b *build) tools(ctx context.Context) (*tool.Registry, error) {
	root, st := b.ws.Root(), b.env.Store
	tools := append(fs.Tools(b.ws, fs.Options{Files: b.opts.Files, BeforeWrite: b.guard.recorder.BeforeWrite, Hidden: b.guard.hidden}),
		b.shells.tool, b.env.Plan, recall.New(st.In(root)), b.mem.search)
	if skills, _ := memory.Skills(b.mem.places); len(skills) > 0 {
		tools = append(tools, memory.NewSkillTool(b.mem.places))
	}
	reg, err := tool.NewRegistry(tools...)
	if err != nil {
		return nil, fmt.Errorf("wiring: %w", err)
	}
	sub, err := b.subagent(reg)
	if err != nil {
		return nil, err
	}
	if err := reg.Add(sub); err != nil {
		return nil, fmt.Errorf("wiring: %w", err)
	}
	if err := addMail(ctx, reg, b.opts.Mail, st, root, b.cfg.Mail.Allow); err != nil {
		return nil, err
	}
	return reg, nil
}

// addMail adds send_message when served (always) or where the workspace
// already has mail: it costs every request its listing line and the
// tool_call proxy, so it joins only where mail is used.
func addMail(ctx context.Context, reg *tool.Registry, served bool, st *store.Store, root string, allow []string) error {
	inUse := served
	if !inUse {
		var err error
		if inUse, err = st.MailInUse(ctx, root); err != nil {
			return err
		}
	}
	if !inUse {
		return nil
	}
	if err := reg.Add(mail.NewTool(mail.ToolOptions{Store: st, Workspace: root, Allow: allow})); err != nil {
		return fmt.Errorf("wiring: %w", err)
	}
	return nil
}

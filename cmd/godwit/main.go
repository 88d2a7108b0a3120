// Command godwit is a coding agent for long working sessions. main only
// hands over to internal/cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/godwit/godwit/internal/cli"
	"github.com/godwit/godwit/internal/sandbox"
	"github.com/godwit/godwit/internal/tool/shell"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	// Every shell command runs under godwit re-executed as its
	// supervisor, which holds the command's process tree; a sandboxed
	// command re-executes godwit again to apply Landlock to itself before
	// running the shell. Neither child returns here.
	shell.MaybeSupervise()
	sandbox.MaybeRunChild()
	// The collector runs at twice Go's default heap growth unless the
	// user sets GOGC: a turn's garbage is mostly live until the turn
	// ends, and at 100 a late turn spends a fifth of its instructions
	// marking it again (docs/architecture.md, "Cost per turn").
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	// SIGHUP (the terminal closed) ends godwit like Ctrl-C and SIGTERM:
	// the turn is cancelled and every command's processes are killed
	// before exit. SIGKILL or a crash cannot be caught; the commands'
	// supervisors then end them.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	f := cli.NewFactory(version)
	// The .env files load once the flags are read (f.LoadEnv), so that
	// -C DIR reads DIR's.
	code := cli.Main(ctx, f, os.Args[1:])
	stop()
	os.Exit(code)
}

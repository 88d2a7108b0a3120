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
	// user sets GOGC. A turn's garbage is mostly the request's bytes and
	// the history it decoded, live until the turn ends: at GOGC=100 a
	// resumed turn at 300 spent a fifth of its instructions marking the
	// same live heap again and again (215M instructions, 175M at 200,
	// 168M at 400); the cost is ~3 MiB of peak RSS in a turn process
	// and, in a resident one, a heap peak of 3x the live heap, not 2x
	// (~5 MiB; docs/architecture.md, "Cost per turn").
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

// Command godwit is a coding agent for long working sessions. main only
// hands over to internal/cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/godwit/godwit/internal/cli"
	"github.com/godwit/godwit/sandbox"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	// A sandboxed shell command re-executes godwit to apply Landlock to
	// itself before running the shell; that child never returns here.
	sandbox.MaybeRunChild()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	f := cli.NewFactory(version)
	// The .env files load once the flags are read (f.LoadEnv), so that
	// -C DIR reads DIR's.
	code := cli.Main(ctx, f, os.Args[1:])
	stop()
	os.Exit(code)
}

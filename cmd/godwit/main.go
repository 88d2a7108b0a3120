// Command godwit is a coding agent for long working sessions. main only
// hands over to internal/cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/godwit/godwit/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	f := cli.NewFactory(version)
	cli.LoadEnvFiles(f)
	code := cli.Main(ctx, f, os.Args[1:])
	stop()
	os.Exit(code)
}

package cli

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/wiring"
)

// Factory carries what every command depends on. Tests build their own.
type Factory struct {
	IO      *IOStreams
	Getenv  func(string) string
	Now     func() time.Time
	Version string
	// Logger is where diagnostics go (stderr at warn level by default, one
	// plain line each, or a file under GODWIT_HOME); never stdout, which
	// belongs to output.
	Logger *slog.Logger
	// Workdir is the directory godwit works in: where it was started, or
	// -C DIR once the flags are read. Commands read it when they run.
	Workdir string
	// Chdir moves the process for -C; nil leaves it (tests).
	Chdir func(string) error
	// LoadEnv loads the .env files once -C is applied; nil loads none
	// (tests).
	LoadEnv func()
	// ProjectKey reads a provider key (*_API_KEY) of the workspace's
	// .env, which LoadEnv keeps out of the environment: wiring uses one
	// only for a provider the user named. Nil has none.
	ProjectKey  func(name string) (string, bool)
	projectKeys map[string]string
}

// NewFactory returns the factory of a real process.
func NewFactory(version string) *Factory {
	ios := System()
	wd, _ := os.Getwd()
	f := &Factory{
		IO:      ios,
		Getenv:  os.Getenv,
		Now:     time.Now,
		Version: version,
		Logger:  slog.New(newLineHandler(safeWriter{ios.ErrOut}, slog.LevelWarn)),
		Workdir: wd,
		Chdir:   os.Chdir,
	}
	f.LoadEnv = func() { loadEnvFiles(f) }
	f.ProjectKey = func(name string) (string, bool) { v, ok := f.projectKeys[name]; return v, ok }
	return f
}

// Home returns GODWIT_HOME, or ~/.godwit.
func (f *Factory) Home() (string, error) { return wiring.Home(f.Getenv) }

// runWith ends a command's RunE: it puts Home in *home, then runs opts
// with runF (tests) when given, else with run.
func runWith[O any](cmd *cobra.Command, f *Factory, home *string, opts O, runF, run func(context.Context, O) error) error {
	h, err := f.Home()
	if err != nil {
		return err
	}
	*home = h
	if runF != nil {
		run = runF
	}
	return run(cmd.Context(), opts)
}

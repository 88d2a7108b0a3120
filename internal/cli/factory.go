package cli

import (
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// Factory carries what every command depends on. Tests build their own.
type Factory struct {
	IO      *IOStreams
	Getenv  func(string) string
	Now     func() time.Time
	Version string
	// Logger is where diagnostics go (stderr at warn level by default, or
	// a file under GODWIT_HOME); never stdout, which belongs to output.
	Logger *slog.Logger
	// Workdir is the directory godwit was started in.
	Workdir string
}

// NewFactory returns the factory of a real process.
func NewFactory(version string) *Factory {
	ios := System()
	wd, _ := os.Getwd()
	return &Factory{
		IO:      ios,
		Getenv:  os.Getenv,
		Now:     time.Now,
		Version: version,
		Logger:  slog.New(slog.NewTextHandler(ios.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Workdir: wd,
	}
}

// Home returns GODWIT_HOME, or ~/.godwit.
func (f *Factory) Home() (string, error) {
	if h := f.Getenv("GODWIT_HOME"); h != "" {
		return filepath.Abs(h)
	}
	dir, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, ".godwit"), nil
}

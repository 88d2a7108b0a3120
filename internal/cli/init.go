package cli

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/atomicfile"
	"github.com/godwit/godwit/internal/config"
	"github.com/godwit/godwit/llm/catalog"
)

// InitOptions are the inputs of `godwit config init`.
type InitOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Home   string
	// Model is the default model to write; empty picks one whose
	// provider's key is in the environment.
	Model string
	Force bool
}

// NewCmdInit writes a commented config.yaml and .env under GODWIT_HOME.
func NewCmdInit(f *Factory) *cobra.Command {
	opts := &InitOptions{IO: f.IO, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write $GODWIT_HOME/config.yaml and .env, with comments explaining each key",
		Long: `Write $GODWIT_HOME/config.yaml and $GODWIT_HOME/.env, each key explained in a
comment. Existing files are kept unless --force (which keeps a .bak copy).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runWith(cmd, f, &opts.Home, opts, nil, runInit)
		},
	}
	cmd.Flags().StringVar(&opts.Model, "model", "", "default model, as provider/model (see `godwit models`)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite existing files (the old ones are kept as .bak)")
	return cmd
}

func runInit(_ context.Context, opts *InitOptions) error {
	cat, err := catalog.New()
	if err != nil {
		return err
	}
	model, err := initModel(cat, opts.Model, opts.Getenv)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(opts.Home, 0o700); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	files := []struct {
		name, text string
		mode       fs.FileMode
	}{
		{config.FileName, configTemplate(model), 0o644},
		{".env", envTemplate(cat, opts.Getenv), 0o600}, // it will hold keys
	}
	for _, fl := range files {
		path := filepath.Join(opts.Home, fl.name)
		wrote, err := writeNew(path, fl.text, fl.mode, opts.Force)
		if err != nil {
			return fmt.Errorf("init: %w", err)
		}
		if wrote {
			fmt.Fprintf(opts.IO.Out, "wrote %s\n", path)
		} else {
			fmt.Fprintf(opts.IO.ErrOut, "kept %s: it exists (--force overwrites it, keeping a .bak)\n", path)
		}
	}
	if model == "" {
		fmt.Fprintln(opts.IO.Out, "next: put an API key in .env, then `godwit config set model provider/model` (see `godwit models`)")
	} else {
		fmt.Fprintf(opts.IO.Out, "default model: %s; `godwit models` lists the others\n", model)
	}
	return nil
}

// initModel checks the --model flag, or picks a default for a provider
// whose key is set; "" when none is.
func initModel(cat *catalog.Catalog, flag string, getenv func(string) string) (string, error) {
	if flag != "" {
		p, _, err := catalog.ParseModelRef(flag)
		if err != nil {
			return "", &UsageError{Err: err}
		}
		if _, ok := cat.Provider(p); !ok {
			var names []string
			for _, pr := range cat.Providers() {
				names = append(names, pr.Name)
			}
			return "", usageErrorf("--model %s: no provider %q; use one of %s, or add it to config.yaml under providers", flag, p, strings.Join(names, ", "))
		}
		return strings.TrimSpace(flag), nil
	}
	return keyModel(getenv), nil
}

// writeNew writes path unless it exists and force is off; with force an
// existing file is first copied to path.bak.
func writeNew(path, text string, mode fs.FileMode, force bool) (bool, error) {
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, err
	case !force:
		return false, nil
	default:
		if err := os.WriteFile(path+".bak", old, mode); err != nil {
			return false, err
		}
	}
	return true, atomicfile.WriteFile(path, []byte(text), mode)
}

func configTemplate(model string) string {
	modelLine := "model: " + model
	if model == "" {
		modelLine = "# model: anthropic/claude-sonnet-4-5"
	}
	return strings.Replace(configText, "{{model}}", modelLine, 1)
}

// configText is config.yaml as init writes it: every key explained, the
// optional ones commented out with an example value.
//
//go:embed config.yaml.tmpl
var configText string

// envTemplate is .env as init writes it: one commented line per provider
// key, so that the user fills in what they use.
func envTemplate(cat *catalog.Catalog, getenv func(string) string) string {
	var b strings.Builder
	b.WriteString(`# Environment for godwit, loaded at start. A variable already set in the
# environment wins over this file. From a project's ./.env only provider
# keys (*_API_KEY) are read, and used only for a provider you name that
# has no key here; nothing else a repository sets there reaches godwit or
# its commands.
# Keep this file private (mode 0600): it holds API keys.

# API keys: uncomment the ones you use.
`)
	for _, p := range cat.Providers() {
		if p.APIKeyEnv == "" {
			continue
		}
		note := ""
		if strings.TrimSpace(getenv(p.APIKeyEnv)) != "" {
			note = "   # set in your environment now"
		}
		fmt.Fprintf(&b, "# %s=%s\n", p.APIKeyEnv, note)
	}
	b.WriteString(`
# Endpoints of built-in providers, when not the default (a proxy, a gateway).
`)
	for _, p := range cat.Providers() {
		if p.BaseURLEnv != "" {
			fmt.Fprintf(&b, "# %s=%s\n", p.BaseURLEnv, p.BaseURL)
		}
	}
	b.WriteString(`
# The default model, over config.yaml's model.
# GODWIT_MODEL=anthropic/claude-sonnet-4-5
`)
	return b.String()
}

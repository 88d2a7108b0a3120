package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/godwit/godwit/internal/config"
	"github.com/godwit/godwit/llm/catalog"
)

// ModelsOptions are the inputs of `godwit models`.
type ModelsOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Home   string
	// Filter keeps models whose provider/model contains it.
	Filter string
}

// NewCmdModels lists the catalog: built-in models and config overrides.
func NewCmdModels(f *Factory) *cobra.Command {
	opts := &ModelsOptions{IO: f.IO, Getenv: f.Getenv}
	return &cobra.Command{
		Use:   "models [FILTER]",
		Short: "List the models godwit knows, with windows, prices and whether their key is set",
		Long: `List the models of the catalog (built in, and config.yaml's providers and
models): context window and most output tokens, list prices in USD per
million tokens (input, output, cache read, cache write), and whether the
model takes images (IMAGES: yes, or - where its vendor documents none;
images: true under models: in config.yaml says so), and whether the
provider's API key is in the environment (KEY: set, missing with the
variable to set, or not needed). provider/* is the default for a provider's
models not listed.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Filter = args[0]
			}
			return runWith(cmd, f, &opts.Home, opts, nil, runModels)
		},
	}
}

func runModels(_ context.Context, opts *ModelsOptions) error {
	cfg, err := config.Load(opts.Home, opts.Getenv)
	if err != nil {
		return err
	}
	cat, err := cfg.Catalog()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tWINDOW\tMAX OUT\tINPUT\tOUTPUT\tCACHE READ\tCACHE WRITE\tIMAGES\tKEY")
	n := 0
	for _, m := range cat.Models() {
		ref := m.Provider + "/" + m.ID
		if m.ID == "" {
			ref = m.Provider + "/*"
		}
		if opts.Filter != "" && !strings.Contains(ref, opts.Filter) {
			continue
		}
		p, _ := cat.Provider(m.Provider)
		images := "-"
		if m.Images {
			images = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", ref, fmtTokens(m.ContextWindow), fmtTokens(m.MaxOutput),
			fmtPrice(m.Price.Input), fmtPrice(m.Price.Output), fmtPrice(m.Price.CacheRead), fmtPrice(m.Price.CacheWrite), images, keyState(p, opts.Getenv))
		n++
	}
	if n == 0 {
		return fmt.Errorf("no model matches %q; run `godwit models` for the whole list", opts.Filter)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.Out, "\nprices: USD per million tokens")
	if cfg.Model != "" {
		fmt.Fprintf(opts.IO.Out, "default: %s\n", cfg.Model)
	}
	return nil
}

// keyState says whether a provider can be called: its key is set, not
// needed, or missing (and which variable to set).
func keyState(p catalog.Provider, getenv func(string) string) string {
	switch {
	case p.NoKey:
		return "not needed"
	case p.APIKeyEnv == "":
		return "missing (no api_key_env)"
	case strings.TrimSpace(getenv(p.APIKeyEnv)) != "":
		return "set"
	default:
		return "missing " + p.APIKeyEnv
	}
}

// fmtTokens writes a token count briefly: 400k, 32.8k, 1.05M.
func fmtTokens(n int) string {
	switch {
	case n <= 0:
		return "-"
	case n >= 1_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 2, 64) + "M"
	case n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	default:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "k"
	}
}

// fmtPrice writes USD per million tokens; "-" for none.
func fmtPrice(p float64) string {
	if p == 0 {
		return "-"
	}
	return "$" + strconv.FormatFloat(p, 'f', -1, 64)
}

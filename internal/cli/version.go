package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// NewCmdVersion prints the version.
func NewCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print godwit's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(f.IO.Out, "godwit %s (%s, %s/%s)\n", f.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}

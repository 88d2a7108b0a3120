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
			_, err := fmt.Fprintln(f.IO.Out, versionLine(f.Version))
			return err
		},
	}
}

// versionLine is what `godwit version` and `godwit --version` print.
func versionLine(v string) string {
	return fmt.Sprintf("godwit %s (%s, %s/%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

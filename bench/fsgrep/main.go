// Command fsgrep runs godwit's grep tool from the command line, so that
// bench/grep.sh can time it next to ripgrep under the same conditions
// (process start included).
//
// Usage: fsgrep [-i] [-max N] PATTERN DIR
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/internal/tool/workspace"
)

func main() {
	ignoreCase := flag.Bool("i", false, "ignore case")
	maxResults := flag.Int("max", 5000, "max matching lines")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: fsgrep [-i] [-max N] PATTERN DIR")
		os.Exit(2)
	}
	ws, err := workspace.New(flag.Arg(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	args, _ := json.Marshal(map[string]any{"pattern": flag.Arg(0), "ignore_case": *ignoreCase, "max_results": *maxResults})
	res, err := fs.NewGrep(ws).Run(context.Background(), args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Print(res.Content)
}

package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/godwit/godwit/internal/suggest"
)

// setupRoot adds the habits users bring from Claude Code and Codex:
// `godwit` alone starts the chat on a terminal (else prints help),
// --version, -C DIR, and "did you mean" for a mistyped command or flag.
func setupRoot(root *cobra.Command, f *Factory) {
	root.Use = "godwit [flags]"
	root.Long = `godwit is a coding agent for long working sessions.

Run alone on a terminal, it starts the chat (godwit chat); -c continues the
last session of this workspace. godwit run "PROMPT" runs one turn and prints
the answer. A workspace is the folder godwit runs in, or -C DIR.`
	// Not cobra's Version: its template links text/template, whose
	// reflection costs every command (cmd/godwit TestLinkerDropsUnusedMethods).
	version := root.Flags().BoolP("version", "v", false, "print godwit's version")

	var cd string
	root.PersistentFlags().StringVarP(&cd, "cd", "C", "", "work in DIR, as if godwit were started there")
	// Cobra runs only the nearest PersistentPreRunE: a subcommand must not
	// set its own, or -C and the .env files stop applying to it.
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if cd != "" {
			dir, err := changeDir(f, cd)
			if err != nil {
				return err
			}
			f.Workdir = dir
		}
		if f.LoadEnv != nil {
			f.LoadEnv()
		}
		return nil
	}

	// The bare command is the chat, with the chat's flags.
	chat := NewCmdChat(f, nil)
	root.Flags().AddFlagSet(chat.Flags())
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if *version {
			_, err := fmt.Fprintln(f.IO.Out, versionLine(f.Version))
			return err
		}
		if !f.IO.InTTY || !f.IO.OutTTY {
			return cmd.Help()
		}
		return chat.RunE(cmd, args)
	}
	for _, c := range allCommands(root) {
		if !c.HasSubCommands() || c.Args != nil {
			continue
		}
		c.Args = unknownSubcommand
		if !c.Runnable() {
			// Cobra checks the arguments of a runnable command only.
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		}
	}
	root.SetFlagErrorFunc(flagError)
}

// changeDir resolves -C's DIR and moves the process there, so relative
// paths on the command line mean what they would there.
func changeDir(f *Factory, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", usageErrorf("-C %s: %v", dir, err)
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", usageErrorf("-C %s: no such folder", dir)
	case err != nil:
		return "", usageErrorf("-C %s: %v", dir, err)
	case !st.IsDir():
		return "", usageErrorf("-C %s: not a folder", dir)
	}
	if f.Chdir != nil {
		if err := f.Chdir(abs); err != nil {
			return "", usageErrorf("-C %s: %v", dir, err)
		}
	}
	return abs, nil
}

func allCommands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		out = append(out, allCommands(sub)...)
	}
	return out
}

// unknownSubcommand refuses an argument that is not one of the command's
// subcommands, naming the nearest. At the root, words that look like a
// prompt get the command that sends one.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" {
			names = append(names, c.Name())
			names = append(names, c.Aliases...)
		}
	}
	word := args[0]
	msg := fmt.Sprintf("unknown command %q for %q", word, cmd.CommandPath())
	if s := suggest.Nearest(word, names); s != "" && !strings.ContainsAny(word, " \t") {
		return usageErrorf("%s: did you mean %s %s?", msg, cmd.CommandPath(), s)
	}
	if !cmd.HasParent() {
		return usageErrorf("%s; to send a prompt, run godwit run %q (or godwit chat); godwit --help lists the commands", msg, strings.Join(args, " "))
	}
	return usageErrorf("%s; %s --help lists its commands", msg, cmd.CommandPath())
}

// peerFlags are flags of Claude Code and Codex, and godwit's way to do
// what they do.
var peerFlags = map[string]string{
	"print":                        "godwit run -p TEXT runs one turn and prints the answer",
	"p":                            "godwit run -p TEXT runs one turn and prints the answer",
	"resume":                       "--session ID (or -c for the last session) continues a session",
	"r":                            "--session ID (or -c for the last session) continues a session",
	"dangerously-skip-permissions": "--yes approves every write and command",
	"full-auto":                    "--allow-write allows writes and commands, asking before each; --yes approves them all",
	"output-format":                "--json prints every event as a JSON line",
	"cwd":                          "-C DIR works in DIR",
}

var flagErrRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^unknown (?:shorthand )?flag: (?:'(.)' in -\S*|--(\S+))$`)
})

// flagError turns pflag's error about a flag into one that says what to
// type: the nearest flag of the command, or godwit's way to do what a
// peer's flag does.
func flagError(cmd *cobra.Command, err error) error {
	m := flagErrRE().FindStringSubmatch(err.Error())
	if m == nil {
		return &UsageError{Err: err}
	}
	name, dashes := m[2], "--"
	if m[1] != "" {
		name, dashes = m[1], "-"
	}
	msg := fmt.Sprintf("unknown flag %s%s for %s", dashes, name, cmd.CommandPath())
	if hint, ok := peerFlags[name]; ok {
		return usageErrorf("%s: %s", msg, hint)
	}
	if dashes == "--" {
		var names []string
		visit := func(fl *pflag.Flag) { names = append(names, fl.Name) }
		cmd.Flags().VisitAll(visit)
		cmd.InheritedFlags().VisitAll(visit)
		if s := suggest.Nearest(name, names); s != "" {
			return usageErrorf("%s: did you mean --%s?", msg, s)
		}
	}
	return usageErrorf("%s; %s --help lists its flags", msg, cmd.CommandPath())
}

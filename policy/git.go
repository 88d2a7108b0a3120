package policy

import (
	"slices"
	"strings"
)

// gitReaders are git subcommands that only read the repository, with the
// flags that would make them write a file or run a program.
var gitReaders = map[string][]string{
	"status": nil, "log": {"--output"}, "show": {"--output"}, "diff": {"--output"},
	"blame": nil, "ls-files": nil, "ls-tree": nil, "rev-parse": nil, "rev-list": nil,
	"describe": nil, "shortlog": nil, "cat-file": nil, "merge-base": nil, "name-rev": nil,
	"grep":    {"-O", "--open-files-in-pager"},
	"help":    nil,
	"version": nil,
}

// gitListFlags may be given to branch and tag without them creating
// anything.
var gitListFlags = []string{"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "-l", "--list",
	"--show-current", "--merged", "--no-merged", "--contains", "--no-contains", "--points-at", "--column", "--no-column"}

// gitRO: read-only git subcommands. Options before the subcommand (-c,
// --exec-path, -C, ...) can run programs or change where git works, so
// only harmless ones are accepted; every argument must be literal.
func gitRO(args []Word) (paths, names []Word, why string) {
	for _, a := range args {
		if !a.Literal() {
			return nil, nil, "an argument is computed at run time (" + a.Value + ")"
		}
	}
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i].Value, "-"); i++ {
		switch args[i].Value {
		case "--no-pager", "-P", "--no-optional-locks", "--no-replace-objects", "--version", "--help":
		default:
			return nil, nil, "git " + args[i].Value + " can change what git runs"
		}
	}
	if i == len(args) {
		return nil, nil, ""
	}
	sub, rest := args[i].Value, args[i+1:]
	if bad, ok := gitReaders[sub]; ok {
		sp := roSpec{args: argsPaths, maxOps: -1, bad: bad}
		paths, names, why = sp.check(rest)
		// rev:path names a file too (git show HEAD:.env).
		for _, p := range paths {
			if _, after, ok := strings.Cut(p.Value, ":"); ok && after != "" {
				names = append(names, Word{Value: after, Known: true})
			}
		}
		// Revisions and pathspecs look alike; only the names matter.
		return nil, append(names, paths...), why
	}
	first := ""
	if len(rest) > 0 {
		first = rest[0].Value
	}
	switch sub {
	case "branch", "tag":
		listing := false
		for _, a := range rest {
			v := a.Value
			switch {
			case v == "-l" || v == "--list":
				listing = true
			case slices.Contains(gitListFlags, v) || strings.HasPrefix(v, "--sort=") || strings.HasPrefix(v, "--format=") ||
				strings.HasPrefix(v, "--contains=") || strings.HasPrefix(v, "--merged=") || strings.HasPrefix(v, "--points-at="):
			case strings.HasPrefix(v, "-"):
				return nil, nil, "git " + sub + " " + v + " may change the repository"
			default:
				if !listing {
					return nil, nil, "git " + sub + " NAME creates or changes a " + sub
				}
			}
		}
		return nil, nil, ""
	case "remote":
		if len(rest) == 0 || (len(rest) == 1 && (first == "-v" || first == "--verbose")) || (len(rest) == 2 && first == "get-url") {
			return nil, nil, ""
		}
	case "stash", "worktree":
		if first == "list" || (sub == "stash" && first == "show") {
			return nil, nil, ""
		}
	case "config":
		if first == "get" || first == "list" {
			return nil, nil, ""
		}
		reads := false
		for _, a := range rest {
			switch a.Value {
			case "--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin", "--show-scope", "--null", "-z",
				"--global", "--local", "--system", "--name-only", "--includes", "--no-includes":
				reads = reads || strings.HasPrefix(a.Value, "--get") || a.Value == "--list" || a.Value == "-l"
			default:
				if strings.HasPrefix(a.Value, "-") {
					return nil, nil, "git config " + a.Value + " may change the configuration"
				}
			}
		}
		if reads {
			return nil, nil, ""
		}
	}
	return nil, nil, "git " + sub + " may change the repository or the network state"
}

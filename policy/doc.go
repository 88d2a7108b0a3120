// Package policy decides whether a tool call may run: it implements
// tool.Approver from a mode (read-only, ask, auto), rules files and a
// Prompter that asks a person.
//
// # Modes
//
// Read-only (the default) refuses writes and commands that are not
// read-only, with a reason that tells the user about --allow-write and
// --yes. Ask (--allow-write) asks before each write or command unless a
// rule allows it. Auto (--yes) approves writes and commands. In every
// mode: deny rules refuse, ask rules ask, writes outside the workspace
// (and to .godwit/rules.yaml, .mcp.json, .git, .git/config, .git/hooks)
// ask, and reads of
// secrets (.env*, *.pem, id_rsa*, credentials, .netrc, ...) or of files
// outside the workspace ask, except with --yes. Where asking is needed
// and no Prompter is configured, the call is refused with a reason.
//
// # Shell commands
//
// A command line is parsed as bash (mvdan.cc/sh/v3/syntax) and every
// simple command in it is judged on its own, wherever it sits: pipelines,
// && || ; lists, subshells, blocks, loops, conditionals, function
// bodies, command and process substitutions, here-documents. Each file
// redirection is a read or write of its file, so `echo x > f` is a write
// even where echo runs freely; redirections to /dev/null or to another
// descriptor are not. A line that does not parse asks.
//
// A built-in list of read-only commands (readonly.go; go test is not on
// it: tests run code) runs without approval in every mode, and always
// confined: the Decision says tool.ConfineReadOnly, and shell_exec runs
// the command with no writes and no network whatever the mode, so the
// sandbox enforces what the analysis concluded. The list is an allow-list
// of options, one table per program, parsed the way getopt_long parses
// them (getopt.go): unique-prefix long options (--outp is --output),
// --opt=value and --opt value, clustered short options (-uo F, -oF),
// options after operands. An option the table does not know, an option
// that writes, runs a program, reads a list of file names or sets
// something (sort -o and --compress-program, rg --pre, find -exec, date
// -s, printf -v), or a computed word where such an option could be ($X,
// a glob matching a file named -o) makes the command need approval. Git's
// options are too many for a table: every word of a git command is
// tested against the options that write or run a program, abbreviations
// included; git -c, --exec-path and the like are never read-only.
//
// Rules match each simple command separately, so "ls && rm -rf x" does
// not pass an allow rule for "ls *". Deny and ask rules also see through
// what runs another command (unwrap.go): wrappers parsed by their option
// tables (sudo -u root rm, timeout -s KILL 5 rm, env -S 'rm x', nice,
// nohup, xargs, busybox, command, exec), shells given a string or their
// input (bash -c, su -c, sh -s with a here-document, bash <<< 'rm x'),
// eval, trap, find -exec and -ok, fd -x, rg --pre, git -c core.pager=,
// aliases defined in the line, glob program names (/bin/r[m], r?), and a
// command's arguments as paths; an allow rule never does. Where what
// runs cannot be known (a pipe into sh, sh < file, a wrapper option
// godwit does not know), the line asks when any deny or ask rule exists,
// and is refused where no one can be asked. A script run by its name
// (bash build.sh, make, python x.py) is not followed: rules see the
// commands of the line, not the programs those run, which is why
// commands that are not read-only need approval unless allowed, and why
// the sandbox exists.
//
// Variables: setting one that changes what later commands run (PATH,
// HOME, IFS, BASH_ENV, GIT_*, XDG_*, LD_*, ...) needs approval, by any
// route: NAME=v, export, printf -v, ${NAME:=v}, arithmetic (bash
// evaluates a variable's value in $(( x )) and can assign any variable
// that way, so arithmetic on variables needs approval too), a for loop's
// variable, {NAME}>file, unset.
//
// Git hooks and configuration run programs later, outside the sandbox.
// A shell command that may change them asks in every mode, --yes
// included (protect.go): arguments naming .git, its hooks or config
// (cp, mv, tee, ln, install, rsync, dd of=, chmod, a redirect), git
// config setting a key off a short harmless list (core.hooksPath,
// core.fsmonitor, core.pager, alias.*, diff.*.textconv, filter.*,
// include.path ...), git -c with such a key, --template, and
// GIT_CONFIG_* variables. Routes the analysis cannot see are for the
// safety layer's after-the-fact check.
//
// Secrets are checked where a command names them (cat .env, < .env,
// grep KEY .env, globs such as *.pem, option values such as grep -f
// FILE) and where a recursive reader would read them (grep -r and -d
// recurse, diff -r, rg, ag, git grep --no-index): a searched folder inside
// the workspace is walked for secrets files (skipping hidden ones when
// rg or ag would), and one that holds any, holds a symlink out of the
// workspace that the search follows, or is too big to check, asks.
// Environment dumps ask (env, printenv, set, export -p, declare -p, ps
// e, jq's $ENV), and so do expansions of variables named like secrets
// ($GITHUB_TOKEN). Git commands that print file contents from git's
// objects (git show, log -p, diff REV, cat-file -p, grep REV) ask,
// since a secret committed once stays in the history, unless the secret
// can be ruled out: no contents are printed (--stat, --name-only, log
// without -p), the output is limited to named files that exist and are
// not secrets (log -p -- src/a.go, show HEAD:src/a.go), or only the work
// tree and the index are read and the index (gitindex.go) tracks no
// secrets file (git diff, git grep). git config --list and remote URLs
// holding a user name or token ask too. Other programs that read a
// whole folder (a build, a script) are not followed: they are not
// read-only, so they need approval anyway, and the sandbox bounds them.
//
// The analysis tracks the directory commands run in through cd; a cd it
// cannot follow makes later relative paths unknown, and an unknown path
// is treated as outside the workspace. What a program writes on its own
// (touch ~/x) is not visible here: that is the sandbox's job, and
// commands that are not read-only need approval anyway.
//
// PowerShell commands (Windows) are not analysed: no read-only list and
// no allow rules apply to them; each one asks.
//
// # Rules
//
// Rules come from $GODWIT_HOME/rules.yaml, which has full power, and
// .godwit/rules.yaml in the workspace, which can only narrow what is
// allowed (see Rule for the matching; deny beats ask beats allow). A
// workspace rules file comes with the repository, so LoadRules takes its
// deny and ask rules and sandbox.network: false, and ignores its allow
// rules, sandbox.writable and sandbox.network: true, with one warning
// per key naming the file (Rules.Ignored). The agent cannot write
// either file without asking.
//
// # Always
//
// An Always answer is remembered for the session, scoped to the tool and
// the pattern shown: a command's program and first argument ("go test
// *"), the folder of a written file ("src/*"), the exact path of a
// secret.
//
// # Reads
//
// The runner asks the Approver only about calls whose Access says
// Mutates. ScreenReads wraps read tools so that reads that need approval
// (secrets, outside the workspace, ask and deny rules) are routed
// through Approve.
//
// This package imports only tool from godwit; it must not
// import agent, store, the tools it judges, or anything under internal/.
package policy

// Package policy decides whether a tool call may run: it implements
// tool.Approver from a mode (read-only, ask, auto), rules files and a
// Prompter that asks a person; the front ends implement Prompter, and policy
// owns no terminal UI.
//
// # Modes
//
// Read-only (the default) refuses writes and commands that are not
// read-only, with a reason that tells the user about --allow-write and
// --yes. Ask (--allow-write) asks before each write or command unless a
// rule allows it. Auto (--yes) approves writes and commands. In every
// mode: deny rules refuse, ask rules ask, writes outside the workspace
// (and to .godwit, .mcp.json, .git, .git/config, .git/hooks, the folders
// core.hooksPath names, and hook managers' files: .husky, pre-commit's
// and lefthook's config) ask, and reads of
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
// eval, trap, find -exec and -ok, fd -x, rg --pre, aliases defined in
// the line, glob program names (/bin/r[m], r?), and a command's
// arguments as paths (glob matches included); an allow rule never does.
// Git is matched without its own options (gitargs.go: git -C . -c k=v
// --no-pager commit is git commit) and through its aliases (git -c
// alias.ci=commit ci, an alias in the repository's or the user's git
// config), and the commands of git -c core.pager=, rebase --exec, bisect
// run, submodule foreach and difftool -x are followed. What runs inside
// a command as if typed (a shell's string or here-document, eval, trap,
// a wrapper's command, find -exec, xargs) is judged with every rule, not
// only deny and ask: its redirects are writes, its arguments may name
// .git/hooks, its reads of secrets ask. Where what runs cannot be known
// (a pipe into sh, sh < file, a wrapper option godwit does not know),
// the line asks when any deny or ask rule exists, and is refused where
// no one can be asked.
//
// Code that runs from a file is read and matched by the deny and ask
// rules (scripts.go, make.go): a shell script run as sh FILE, source
// FILE or by its path (recursively, to a depth of 4), the package.json
// script npm run, yarn or pnpm runs (with its pre and post scripts), and
// the Makefile recipes make would run for the targets named, their
// prerequisites, pattern rules and $(shell ...), with make's variables
// expanded ($(RM) is rm -f). A program run by its path is also matched
// as the target of its symlink (./del -> /bin/rm is rm) and as a program
// a rule names when it is the same file or a copy. Such a file asks
// instead where it cannot be read as it will run: the same line may
// write it first (echo ... > t.sh && sh t.sh), it does not exist yet, it
// lies outside the workspace and its temp folder, it may write to itself
// as bash reads it, or a program in it is named by a variable ($JAVA,
// "$@"). Code in other languages (awk's program, python -c, perl -e,
// node -e, sed's e command, a Python file or a #! script) is not parsed
// but scanned per language (code.go): where a deny or ask command rule
// exists, code that mentions the rule's words, or that can start a
// program or reach a name at run time (Python's os, subprocess,
// asyncio, webbrowser, pickle, getattr, globals, dunders, compile;
// Perl's system, readpipe, open, eval, use; Node's child_process, a
// computed require or member of process, eval, Function; awk's system
// and pipes), asks, and with no one to ask is refused: a name built as
// the program runs ("sys"+"tem") cannot be matched, so the scan looks
// for the doors, not the names. Code the interpreter loads from the
// workspace is read too (python -m NAME, an import of a workspace
// module, a json.py shadowing the library) and so is a program on
// standard input (a here-document; a pipe asks). Where a deny or ask
// path rule exists, code that can read files on its own (open,
// pathlib, fs, sed's r, getline) asks as well. A variable whose value
// programs run as a command line (GIT_EDITOR, GIT_SSH_COMMAND, PAGER,
// BROWSER ...) hides that command, so setting one asks where rules
// exist. The limit bounded by the sandbox rather than by rules:
// programs that run the project's own code in ways no file shows (go
// test, go run, cargo, pytest, a compiled binary, npm exec) are not
// followed, since asking on every test run would make deny rules
// unusable. A script read when the command is approved could still be
// changed by a process an earlier command left running before it runs.
//
// Variables: under set -k (set -o keyword) a NAME=value word after the
// program is an assignment, and is judged as one. Setting one that
// changes what later commands run (PATH,
// HOME, IFS, BASH_ENV, GIT_*, XDG_*, LD_*, ...) needs approval, by any
// route: NAME=v, export, printf -v, ${NAME:=v}, arithmetic (bash
// evaluates a variable's value in $(( x )) and can assign any variable
// that way, so arithmetic on variables needs approval too), a for loop's
// variable, {NAME}>file, unset.
//
// Git hooks and configuration run programs later, outside the sandbox.
// A shell command that may change them asks in every mode, --yes
// included (protect.go): arguments naming .git, its hooks or config
// (cp, mv, tee, ln, install, rsync, dd of=, chmod, a redirect, in the
// line or in a string a shell runs), a file-placing program (cp, mv,
// ln, install, rsync, tee, dd) whose target is known only at run time
// (cp x "$D", xargs cp x, as a redirect to a computed path does), git
// config setting a key off a short harmless list (core.hooksPath,
// core.fsmonitor, core.pager, alias.*, diff.*.textconv, filter.*,
// include.path ...), git -c with such a key, --template, and
// GIT_CONFIG_* variables. So do the git commands that point the user's
// later fetches and pushes at a place the user has not chosen: git
// remote add and set-url, git config remote.*.url, pushurl,
// url.*.insteadOf and branch.*.remote set to anything but a remote the
// repository has, push or fetch --set-upstream to a URL; and git init
// --separate-git-dir (it moves the git folder out of reach of these
// checks), git lfs install (it writes hooks), git maintenance start.
// Other subcommands that write .git/config are harmless and are judged
// as any command: git branch -u and checkout --track name a ref of a
// remote already configured, git submodule add, init and update record
// where submodules are fetched from (their hooks come from git's
// template, not from the remote), git worktree add writes no setting,
// and git init in a repository rewrites only its format keys. Routes
// the analysis cannot see (a script file, a program writing on its own)
// are for the safety layer's after-the-fact check.
//
// Secrets are checked where a command names them (cat .env, < .env,
// grep KEY .env, globs such as *.pem, option values such as grep -f
// FILE) and where a recursive reader would read them (grep -r and -d
// recurse, diff -r, rg, ag, git grep --no-index): a searched folder inside
// the workspace is walked for secrets files (search.go), following
// exactly what the program follows: hidden entries are skipped when rg
// or ag would skip them, and symlinks are followed, into the folders
// they lead to, when the program dereferences them (grep -R, rg -L, ag
// -f, diff -r), so a link to .env, or to a folder holding one, counts. A
// folder that holds any, that holds a followed link out of the
// workspace (a read outside it), or that is too big to check, asks. A
// regular file with more than one hard link counts as a read outside
// the workspace, by a command or a file tool: its other names cannot be
// seen, and one may be ~/.ssh/id_ed25519.
// Programs that list names, not contents (find, ls -R, tree, du, fd),
// are checked for followed links out of the workspace only (find -L,
// -follow, ls -RL, tree -l, du -L, fd -L). Environment dumps ask (env,
// printenv, set, export -p, declare -p, ps e, jq's $ENV), and so do
// expansions of variables named like secrets ($GITHUB_TOKEN). Git
// commands that print file contents from git's objects (git show, log
// -p, diff REV, cat-file -p, grep REV) ask, since a secret committed
// once stays in the history, unless the secret can be ruled out: no
// contents are printed (--stat, --name-only, log without -p), the output
// is limited to named files that exist, are not secrets and had no
// secret's name in the history (log -p -- src/a.go, show HEAD:src/a.go;
// gitnames.go walks git's renames back), or only the work tree and the index
// are read and the index (gitindex.go) tracks no secrets file (git diff,
// git grep). git config --list and remote URLs holding a user name or
// token ask too. Other programs that read a whole folder (a build, a
// script) are not followed: they are not read-only, so they need
// approval anyway, and the sandbox bounds them.
//
// Deny and ask path rules (secrets/**) hold for the same reads, not
// only for the paths a command names: a recursive search of a folder
// holding a path they name (walked as above), the tracked files git
// grep and git diff print (read from git's index), the matches of a
// glob (cat secret?/*), a name in git's tree (git show HEAD:secrets/x),
// and what a shell string reads. Where the files cannot be listed, the
// line asks: git's history (git log -p, git archive), a folder too big
// to walk, a computed argument of a command that is not read-only. The
// grep and file_list tools pass over what such rules name and say so
// (Policy.Hidden). A program reading on its own (python reading
// secrets/x) is not seen: path rules bind what the analysis sees, and
// the sandbox does not enforce them.
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
// *"), the file read or written, exactly. A write to a protected file
// (above) offers no Always and asks after any: an Always for README.md
// once became "./*", and covered .mcp.json.
//
// Rules by tool name hold for every call of the tool, those with no path
// or command included (recall, search_memory, subagent, an MCP tool the
// server marks read-only): such a call is one item, a read, so a deny or
// ask rule naming the tool reaches it through NeedsApproval. Calls
// through tool_call are judged as the tool they run.
//
// # Reads
//
// The runner asks the Approver only about calls whose Access says
// Mutates. ScreenReads wraps read tools so that reads that need approval
// (secrets, outside the workspace, ask and deny rules) are routed
// through Approve.
//
// This package imports tool from godwit, internal/termsafe,
// internal/tool/workspace (the workspace's rules file is read through its
// root) and internal/gitconfig; it must not import agent, store, the
// tools it judges, or anything else under internal/.
package policy

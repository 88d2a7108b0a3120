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
// (and to .godwit/rules.yaml, .git/config, .git/hooks) ask, and reads of
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
// descriptor are not. A line that does not parse asks. A built-in list of
// read-only commands (see readonly.go for the list and what is left out
// on purpose, go test among them: tests run code) needs no approval in
// any mode. Rules match each simple command separately, so "ls && rm -rf
// x" does not pass an allow rule for "ls *". Deny and ask rules also look
// through wrappers (sudo, env, timeout, xargs, command, ...), into
// `bash -c STRING` and `eval`, and at a command's arguments as paths; an
// allow rule never does. Pattern rules can still be dodged by spelling a
// command differently (rm -r -f for rm -rf *), which is why commands that
// are not read-only need approval unless allowed, and why the sandbox
// exists.
//
// Secrets are checked where a command names them (cat .env, < .env,
// grep KEY .env, globs such as *.pem) and where a recursive search (grep
// -r, rg, ag) would read them: a searched folder inside the workspace is
// walked for secrets files (skipping hidden ones when rg or ag would), and
// one that holds any, or is too big to check, asks. Other programs that
// read a whole folder (a build, a script) are not followed: they are not
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
// Rules come from $GODWIT_HOME/rules.yaml and .godwit/rules.yaml in the
// workspace (see Rule for the matching): deny beats ask beats allow. A
// workspace rules file comes with the repository; a cloned repository
// can ship allow rules, so read it before trusting it. The agent cannot
// write it without asking.
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

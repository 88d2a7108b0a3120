// Package policy decides whether a tool call may run: it implements
// tool.Approver from a mode (read-only, ask, auto), rules files and a
// Prompter that asks a person. The front ends implement Prompter; policy
// owns no terminal UI.
//
// Guarantees, in every mode: deny rules refuse and ask rules ask; a write
// outside the workspace asks, and one to a protected file (.git, its
// config and hooks, the folders core.hooksPath names, hook managers'
// files, .godwit, .mcp.json) asks every time, after any Always, --yes
// included; a read of a secret or of a file outside the workspace asks
// except with --yes; where asking is needed and no Prompter is
// configured, the call is refused with a reason.
// A shell line is parsed as bash and every simple command in it judged on
// its own; a line that does not parse asks. A command on the read-only
// list runs unasked only confined (tool.ConfineReadOnly: no writes, no
// network). Rules from $GODWIT_HOME/rules.yaml have full power; a
// workspace's .godwit/rules.yaml can only narrow. NeedsApproval screens
// reads (tool.ReadScreener).
//
// Limits: what the project's own code does (go test, cargo, a built
// binary) and what a program reads or writes on its own are not followed;
// the sandbox bounds them. docs/safety.md ("How the policy judges a call")
// lists every route the analysis follows and where it stops.
//
// Of godwit's packages it imports only tool, internal/termsafe,
// internal/tool/workspace, internal/gitconfig and internal/regfile.
package policy

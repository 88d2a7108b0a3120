// Package sandbox runs shell_exec commands under Landlock on Linux: reads
// anywhere, writes only to the workspace, a private TMPDIR, the folders
// rules add and the private build caches (Caches), or nowhere in
// read-only mode; network on or off.
//
// Landlock restricts only the calling process and its children, so Wrap
// rewrites a command to start godwit itself as
// `godwit __godwit_sandbox PATH ARGV...`, which applies the ruleset and
// execs PATH, keeping its pid, group and descriptors; settings travel in
// GODWIT_SANDBOX. main (and TestMain in tests that sandbox commands)
// must call MaybeRunChild first thing. The command is a child of
// tool/shell's supervisor; Landlock's signal scoping (ABI 6) keeps it
// from signalling the supervisor or godwit.
//
// On Linux each command also gets mount and PID namespaces (View), since
// Landlock cannot deny reads below a folder it allows: secrets files
// appear empty, credential folders are gone, git config is seen without
// credentials and cannot change, /proc shows only the command's own
// processes. Where Landlock or the namespaces are missing, Wrap logs once
// and the approval gates still hold; an older Landlock ABI gets its
// strongest subset.
//
// Of godwit's packages it imports only internal/atomicfile,
// internal/gitconfig, internal/hostpath and internal/regfile. Which files are secrets is the caller's list
// (View.Secrets).
package sandbox

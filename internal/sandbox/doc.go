// Package sandbox runs shell_exec commands under Landlock on Linux: reads
// anywhere, writes only to the workspace, a private temp folder (TMPDIR)
// and the folders rules add, or no writes at all in read-only mode, and
// network on or off.
//
// Landlock restricts the calling process and what it starts, never its
// parent, so the restriction is applied in the child: Wrap rewrites a
// command so that it starts the godwit binary itself as
// `godwit __godwit_sandbox PATH ARGV...`; that process applies the
// Landlock ruleset and then execs PATH with ARGV, keeping its process id,
// group and descriptors. The settings travel in the GODWIT_SANDBOX
// environment variable, which the child removes before the exec.
//
// For this to work, the program's main must call MaybeRunChild first
// thing (before flags, signals or anything else):
//
//	func main() {
//		sandbox.MaybeRunChild()
//		...
//	}
//
// Tests that sandbox commands do the same in TestMain, since the test
// binary is the executable that is re-run.
//
// tool/shell starts each command under a supervisor (godwit re-executed
// again, outside the sandbox) that holds its process tree; the sandbox
// child is that supervisor's child. Landlock's signal scoping (ABI 6,
// Linux 6.12) then keeps the command from signalling or stopping its
// supervisor or godwit, so it cannot cut itself loose from them.
//
// Config.Caches gives commands that may write private, persistent caches
// (Go's, npm's, cargo's, ...) in place of the user's, which stay
// read-only since the user's own builds trust them; Go's build cache
// reads through to the user's by GOCACHEPROG, served by this binary
// re-executed as `godwit __godwit_gocache` (MaybeRunChild runs it too).
// See Caches.
//
// Where Landlock is missing (an old kernel, another OS), Wrap logs one
// warning and returns a function that only sets TMPDIR: the approval
// gates still hold. Where the kernel knows an older Landlock ABI, the
// strongest subset is applied (best effort); network restriction needs
// ABI 4 (Linux 6.7).
//
// Landlock cannot deny reads below a folder it allows, so on Linux each
// command also gets namespaces of its own (Config.View: mount and PID,
// and a user namespace where godwit is not root, asked for by clone
// flags on the command, so the supervisor is the first process of the
// PID namespace; the sandbox child mounts before Landlock): the
// workspace's secrets files appear empty, the user's credential folders
// and GODWIT_HOME (but for its caches and skills) are not there, git's
// config files are seen without credentials and, with the hooks, cannot
// change, the .git folder cannot be swapped, and /proc shows only the
// command's own processes. Whether the namespaces can be made is probed
// once per View (godwit re-executed as `__godwit_sandbox_probe`); where
// they cannot, commands run under Landlock alone and View.Refused is
// told why, once. Config.Limits are rlimits set in the child.
//
// Of godwit's packages it imports only internal/atomicfile and
// internal/gitconfig. Which files are secrets is the caller's list
// (View.Secrets).
package sandbox

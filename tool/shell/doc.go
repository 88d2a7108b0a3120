// Package shell provides the shell_exec tool: it runs a command in the
// workspace with `bash -c` (sh where bash is missing, PowerShell on
// Windows), in the foreground with a timeout or in the background as a job
// the model can list, inspect, tail and stop across the turns of a
// session.
//
// Every command runs in its own process group (a new session on unix, so
// it also has no controlling terminal and cannot wait on /dev/tty), with
// stdin at /dev/null. The whole group is killed (SIGTERM, then SIGKILL
// after a short grace) on timeout, on cancellation, on stop, and by Close
// at the end of the session; a foreground command's leftover background
// processes are killed when it exits. A process that leaves the group on
// purpose (setsid, a double-forking daemon) escapes this: only a cgroup or
// a sandbox could hold it.
//
// Foreground output is stdout and stderr merged in the order written (the
// interleaving of an error with the output around it is what the model
// needs, and two streams would cost a second cap), capped to head and
// tail, and always ends with a trailer line giving the exit status and
// duration. A non-zero exit is a normal result, not a tool error.
//
// An editor that offers terminals (ACP) can run foreground commands
// instead, through Options.Terminal: the command (after Wrap) runs there,
// under the same timeout and cancellation, and the editor shows its
// output live; background jobs always run here.
//
// This package imports only tool and llm from godwit; it must not import
// agent, store, window or anything under internal/. Detecting which files
// a command changed and sandboxing it belong to the safety layer, which
// plugs in through Options.Wrap, and Options.ReadOnlyWrap for a command
// the approver allowed only because it reads (tool.ConfineReadOnly in
// the call's context): that one runs with no writes and no network.
package shell

// Package shell provides the shell_exec tool: it runs a command in the
// workspace with `bash -c` (sh where bash is missing, PowerShell on
// Windows), in the foreground with a timeout or in the background as a job
// the model can list, inspect, tail and stop across the turns of a
// session.
//
// Every command runs in a new session on unix (so it has no controlling
// terminal and cannot wait on /dev/tty), with stdin at /dev/null. Where
// main calls MaybeSupervise, a supervisor (godwit re-executed, see
// supervise.go) sits between godwit and the shell and holds the
// command's whole process tree: on Linux it is a child subreaper, so a
// process that calls setsid or double-forks is still its descendant, and
// a lifeline pipe tells it when godwit dies in any way (SIGKILL, a
// crash), whereupon it ends the tree. The whole tree is ended (SIGTERM,
// then SIGKILL after a short grace) on timeout, on cancellation, on stop,
// and by Close at the end of the session; a foreground command's
// leftover background processes are killed when it exits. Without a
// supervisor (Windows, or a program that does not call MaybeSupervise)
// only the process group is held, and a process that leaves it escapes.
// macOS and the BSDs have no subreaper: there the supervisor holds the
// group, and still ends it when godwit dies. Options.Track hears of every
// command's group leader (an Identity: pid and start stamp), so that the
// safety layer can record it and a later godwit end what a dead one left
// (EndOrphan).
//
// A background job's output goes to a pipe that godwit copies into the
// job's log (.godwit/run/jN.log, opened inside the workspace's root and
// read back through the same descriptor), keeping at most
// Options.LogLimit bytes: its end, behind a note of what was dropped.
//
// Foreground output is stdout and stderr merged in the order written (the
// interleaving of an error with the output around it is what the model
// needs, and two streams would cost a second cap), capped to head and
// tail, and always ends with a trailer line giving the exit status and
// duration. A non-zero exit is a normal result, not a tool error. While
// it runs, its newest lines are reported as the call's progress
// (tool.Progress.Output) to whoever hears it: the chat shows them live.
//
// An editor that offers terminals (ACP) can run foreground commands
// instead, through Options.Terminal: the command (after Wrap) runs there,
// under the same timeout and cancellation, and the editor shows its
// output live; background jobs always run here. The editor starts the
// command's supervisor, which watches godwit's process instead of a
// lifeline and ends the tree with godwit, with the terminal, or once the
// command exits.
//
// Of godwit's packages it imports only llm and tool. Detecting which files
// a command changed and sandboxing it belong to the safety layer, which
// plugs in through Options.Wrap, and Options.ReadOnlyWrap for a command
// the approver allowed only because it reads (tool.ConfineReadOnly in
// the call's context): that one runs with no writes and no network.
package shell

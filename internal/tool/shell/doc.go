// Package shell provides the shell_exec tool: it runs a command in the
// workspace with `bash -c` (sh where bash is missing, PowerShell on
// Windows), in the foreground with a timeout or in the background as a
// job the model can list, inspect, tail and stop across a session's turns.
//
// Commands run in a new session (no controlling terminal) with stdin at
// /dev/null. Where main calls MaybeSupervise, a supervisor (supervise.go)
// holds each command's whole process tree and ends it when godwit dies in
// any way; without one (Windows) only the process group is held. The tree
// is ended on timeout, cancellation, stop and Close, and a foreground
// command's leftover processes when it exits. Options.Track hears of every
// group leader so the safety layer can end what a dead godwit left
// (EndOrphan).
//
// Foreground output is stdout and stderr merged in the order written,
// capped to head and tail, and ends with a trailer giving the exit status
// and duration; a non-zero exit is a result, not a tool error. Its newest
// lines are reported as progress while it runs. A job's output goes to its
// log (.godwit/run/jN.log), which keeps its last Options.LogLimit bytes.
// Options.Terminal runs foreground commands in an editor's terminal.
//
// Of godwit's packages it imports only llm and tool. Change detection and
// sandboxing belong to the safety layer, which plugs in through
// Options.Wrap, ReadOnlyWrap and WriteWrap.
package shell

// Package shell provides the shell_exec tool: it runs a command in the
// workspace with `bash -c` (sh where bash is missing, PowerShell on
// Windows), in the foreground with a timeout or in the background as a
// job the model can list, inspect, tail and stop across a session's turns.
//
// Commands run in a new session with stdin at /dev/null. Where main
// calls MaybeSupervise, a supervisor (supervise.go) holds each command's
// process tree and ends it when godwit dies; elsewhere (Windows) only the
// group is held. The tree ends on timeout, cancellation, stop and Close,
// and a foreground command's leftovers when it exits. Options.Track hears
// of every group leader (EndOrphan ends what a dead godwit left).
//
// Foreground output is stdout and stderr merged, capped to head and tail,
// with a trailer of exit status and duration (a non-zero exit is a
// result, not an error), its newest lines reported as progress. A job's
// output goes to .godwit/run/jN.log, keeping its last Options.LogLimit
// bytes.
//
// Of godwit's packages it imports only llm, tool and internal/hostpath. Change detection and
// sandboxing belong to the safety layer, which plugs in through
// Options.Wrap, ReadOnlyWrap and WriteWrap.
package shell

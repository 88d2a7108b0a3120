// Package eval judges changes to godwit by running tasks, not by
// impression. It owns the task format (a folder holding task.yaml:
// setup, the user's turns, checks, limits; evals/README.md), scripted
// models as data (Script: rules that answer the engine's requests with
// text, tool calls or a handoff), the runner (Run: every run in a fresh
// workspace and store with the real engine, in parallel, optionally one
// shard), results and their Merge, and Compare: two result sets lined up
// by task, each labelled helped, hurt, no observed effect or confounded,
// gated by bars such as "calls<=+5%", with a Verdict for the ledger.
//
// Of godwit's packages it imports only internal/agent, internal/digits,
// internal/handoff, internal/config, internal/wiring, llm, llm/fake,
// internal/policy, internal/store, internal/untrusted,
// internal/atomicfile and internal/regfile. Its runs approve as `run --yes` does. It writes
// only to the io.Writers and files its callers name, never to stdout.
//
// Tests that run tasks need TestMain to call shell.MaybeSupervise and
// sandbox.MaybeRunChild: the engine's shell re-runs the executable.
package eval

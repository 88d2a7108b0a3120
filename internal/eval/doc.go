// Package eval judges changes to godwit by running tasks, not by
// impression. It owns:
//
//   - the task format: one folder per task holding task.yaml (id and
//     version, setup, the user's turns with forced resets, checks, limits)
//     and the files it copies (see Task and docs in evals/README.md);
//   - a small language for scripted models (Script): rules that react to
//     the request the engine sent (a handoff instruction, a user message,
//     a tool's output) with text, tool calls or a handoff, so long-session
//     scenarios are data rather than Go code;
//   - the runner (Run): every task and run in a fresh temporary workspace
//     and store, with the real engine from internal/wiring, in parallel,
//     optionally one shard of a suite;
//   - results (Results), their summary, and Merge of shard files;
//   - Compare: two result sets lined up by task, each labelled helped,
//     hurt, no observed effect or confounded, gated by bars such as
//     "calls<=+5%", with a Verdict for the ledger (store and JSONL).
//
// Of godwit's packages it imports only internal/agent, internal/digits,
// internal/handoff, internal/config, internal/wiring, llm, llm/fake,
// internal/policy, internal/store, internal/untrusted and
// internal/atomicfile. It builds engines with internal/wiring, and its
// runs approve as `run --yes` does. It writes only to the io.Writers and
// files its callers name, never to stdout.
//
// Tests that run tasks need TestMain to call shell.MaybeSupervise and
// sandbox.MaybeRunChild: the engine's shell re-runs the current
// executable to supervise each command and to apply the sandbox.
package eval

// Package cli is godwit's command tree: one file per command, each with an
// Options struct holding its inputs and dependencies and a NewCmdX
// constructor that takes the Factory and an optional run function, so
// tests can check how flags become options and run the real function
// against fake IO streams (the GitHub CLI's pattern, with ctx added).
//
// Only cmd/godwit uses cli. Of godwit's packages it imports only
// internal/agent, internal/demo, internal/wiring, internal/config,
// internal/suggest, llm, llm/catalog, internal/store, tool,
// internal/tool/workspace, internal/trace, internal/acp, internal/policy,
// internal/snapshot, internal/tui, internal/eval, internal/mail,
// internal/termsafe, internal/atomicfile and internal/regfile.
package cli

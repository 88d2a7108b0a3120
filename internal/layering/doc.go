// Package layering holds only tests: every godwit package's non-test
// files, parsed with go/ast, checked against the layers' import table
// (docs/architecture.md), with stale allowances failing too, and the
// core's bans, each with its reason: no terminal-UI or command-line
// library, no standard log, no writes to the process's stdout or stderr.
package layering

// Package layering holds only tests: every godwit package's non-test
// files, parsed with go/ast, checked against the layers' table (and
// docs/architecture.md's copy of it, and each package doc's sentence
// naming its godwit packages), with stale allowances failing too, and the
// core's bans, each with its reason: no terminal-UI or command-line
// library, no standard log, no writes to the process's stdout or stderr.
//
// It imports none of godwit's packages.
package layering

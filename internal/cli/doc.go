// Package cli is godwit's command tree: one file per command, each with an
// Options struct holding its inputs and dependencies and a NewCmdX
// constructor that takes the Factory and an optional run function, so
// tests can check how flags become options and run the real function
// against fake IO streams (the GitHub CLI's pattern, with ctx added).
//
// cli may import everything below it; nothing imports cli but cmd/godwit.
package cli

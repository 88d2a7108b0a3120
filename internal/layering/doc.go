// Package layering holds only a test: the import rules of DESIGN.md's
// layers, checked on every godwit package's non-test files.
package layering

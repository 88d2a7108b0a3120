// Package workspace owns the boundary of the folder godwit works in: it
// turns the paths a model sends (relative or absolute, through symlinks,
// for files that may not exist yet) into absolute, symlink-free paths and
// says whether they stay inside the root.
//
// It imports only tool (for ToolError) from godwit; it must not import the
// tools that use it, agent, store or anything under internal/.
package workspace

// Package workspace owns the boundary of the folder godwit works in: it
// turns the paths a model sends (relative or absolute, through symlinks,
// for files that may not exist yet) into absolute, symlink-free paths and
// says whether they stay inside the root, and it is the one way godwit's
// own process touches files a model or a repository names: every open,
// stat, listing, removal and atomic write goes through an os.Root of the
// workspace, which never resolves a link out of it, so a folder swapped
// for a link to $HOME between the check and the use fails the operation
// instead of carrying it outside. Load reads a file godwit puts into a
// request (rules, skills, .mcp.json) the same way and screens secrets.
//
// Of godwit's packages it imports only tool and internal/atomicfile. tool
// gives it ToolError and the secrets list.
package workspace

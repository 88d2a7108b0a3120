// Package workspace owns the boundary of the folder godwit works in: it
// turns the paths a model sends into absolute, symlink-free paths inside
// the root or not, and it is the one way godwit's own process touches
// files a model or a repository names: every operation goes through an
// os.Root of the workspace, so a folder swapped for a link to $HOME
// between the check and the use fails instead of carrying it outside.
// Load reads a file godwit puts into a request (rules, skills, .mcp.json)
// the same way and screens secrets.
//
// Of godwit's packages it imports only tool and internal/atomicfile. tool
// gives it ToolError and the secrets list.
package workspace

// Package gitguard keeps git's hooks and configuration as the user left
// them across the shell commands godwit runs: hooks and keys such as
// core.hooksPath, alias.* or filter.* name programs git runs later,
// outside any sandbox, and .git lies in the writable workspace.
//
// Before each command a Guard records the repository's control files
// (.git/config and its includes, worktree configs, .git/hooks, each
// submodule's config and hooks, the core.hooksPath folder, hook
// managers' files at the top of the work tree, the user's global config
// where gitconfig.Files finds it for the environment); after it, it
// restores byte for byte what changed and reports each restore. Config is judged key by key: a change touching only keys
// that name no program (what `git push -u` or `git remote add` write)
// stays; any other, or a file that no longer parses, is undone whole. A
// repository a command creates keeps only its *.sample hooks and its
// safe keys. The check is stat-based: only a file whose identity
// changed is read.
//
// Limits: a nested repository that is not a submodule is not guarded;
// the system config (/etc/gitconfig, GIT_CONFIG_SYSTEM's file) is read,
// never written; changes made while no command runs are the user's.
//
// Tool wraps shell_exec. Of godwit's packages it imports only tool,
// internal/atomicfile and internal/gitconfig.
package gitguard

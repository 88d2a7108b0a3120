// Package gitguard keeps git's hooks and configuration as the user left
// them across the shell commands godwit runs.
//
// Hooks, and configuration keys such as core.hooksPath, core.fsmonitor,
// core.pager, alias.*, filter.*, diff.*.textconv or include.path, name
// programs git runs later, outside any sandbox, when the user next
// commits, diffs or pulls. Landlock cannot forbid a folder inside the
// writable workspace, and .git is one, so a command could plant them.
// A Guard therefore records, before each command, the repository's
// control files: .git/config and the config files it includes,
// .git/config.worktree and each worktree's, .git/hooks (every entry,
// its mode and content), each submodule's config and hooks under
// .git/modules, the folder core.hooksPath points at (and, for husky's
// .husky/_, the folder above, whose files its wrappers run), hook
// managers' files at the top of the work tree (.husky, pre-commit's,
// overcommit's and lefthook's config under each of its names), and the
// user's global config (~/.gitconfig, $XDG_CONFIG_HOME/git/config), which
// a command can reach when there is no sandbox or the workspace holds
// home. After the command it compares, and restores byte for byte what
// changed (deleting hooks that were added, putting back modes and
// symbolic links), and reports each restore so that the user and the
// model are told.
//
// Configuration changes are judged key by key: a change that only
// touches keys that name no program (branch.*, remote.*.url and .fetch,
// user.name, submodule.*.url, core.bare and the like: what `git push -u`,
// `git remote add` or `git submodule add` write) is kept; any other
// change, or a file that no longer parses, is undone whole. Hooks are
// restored on any change. A repository that a command creates (git init)
// keeps only its *.sample hooks and its config loses the keys that name
// programs.
//
// The check is stat-based: only a file whose identity (device, inode,
// size, modification and change times, mode) changed is read.
//
// Limits: a repository nested in the workspace that is not a submodule
// (a plain clone under vendor/) is not guarded; /etc/gitconfig is read
// (for core.hooksPath) but never written. Changes made while no command
// of godwit's runs are the user's and are taken as the new state.
//
// Tool wraps shell_exec. Of godwit's packages it imports only tool,
// internal/atomicfile and internal/gitconfig.
package gitguard

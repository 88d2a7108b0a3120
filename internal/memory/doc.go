// Package memory owns what godwit knows beyond one session's messages:
//
//   - project rules: AGENTS.md files found the way Codex finds them, CLAUDE.md
//     where a folder has no AGENTS.md, and a user-level $GODWIT_HOME/AGENTS.md;
//   - memory files: .godwit/memory.md (project) and $GODWIT_HOME/memory.md
//     (user), read at segment start, with change detection by content hash;
//   - skills: folders with a SKILL.md under .godwit/skills, .agents/skills
//     and .claude/skills of the workspace and each folder above it up to the
//     repository root, and of the user ($GODWIT_HOME/skills, ~/.agents,
//     ~/.claude, ~/.codex), listed by name and description, their bodies
//     loaded on demand by the skill tool; on a name clash the user's skill
//     wins (as in Claude Code), then the nearer folder;
//   - long-term search across the workspace's sessions (search_memory):
//     memory files, Decisions entries, handoffs and pages, by BM25 and,
//     when an embeddings endpoint is configured, by embeddings, fused by
//     reciprocal rank; read through a store.Scope, so another workspace's
//     records are never found.
//
// Source composes the first three into the prefix blocks the window puts
// after the system prompt; it returns plain Text values, so memory does not
// depend on window.
//
// A repository's rules, memory file and skills are read through a root of
// the repository (internal/tool/workspace): one that is a link out of it,
// or a secrets file, is left out, and Prefix.Problems says why (the user
// sees it; the model gets nothing of the file). The user's own files are
// read as they are.
//
// Of godwit's packages it imports only llm, internal/store, tool and
// internal/tool/workspace.
package memory

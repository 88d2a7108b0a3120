// Package memory owns what godwit knows beyond one session's messages:
// project rules (AGENTS.md and CLAUDE.md, found as Codex finds them, and
// $GODWIT_HOME/AGENTS.md), memory files (.godwit/memory.md and
// $GODWIT_HOME/memory.md, with change detection by content hash), skills
// (SKILL.md folders of the repository and of the user, bodies loaded on
// demand by the skill tool; the user's win a name clash), and
// search_memory over the workspace's sessions (BM25, plus embeddings when
// configured, fused by reciprocal rank) through a store.Scope, so another
// workspace's records are never found. Source composes the first three
// into the prefix blocks the window puts after the system prompt.
//
// A repository's rules, memory file and skills are read through a root of
// the repository (internal/tool/workspace): one that is a link out of it,
// or a secrets file, is left out, and the log tells the user why;
// the model gets nothing of it. The user's own files are read as they are.
//
// Of godwit's packages it imports only llm, internal/store, tool and
// internal/tool/workspace.
package memory

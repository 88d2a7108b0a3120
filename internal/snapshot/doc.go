// Package snapshot makes the agent's file changes undoable.
//
// A Recorder keeps, before a file tool first writes a path in a turn, the
// path's previous content (or that it did not exist) in the store
// (store.RecordSnapshot); it plugs into tool/fs as Options.BeforeWrite.
// The Recorder must know the session and turn: call SetTurn at the start
// of every turn (the agent's turn.started event carries both).
//
// Undo restores, byte for byte, the first snapshot of each path taken in
// a turn at or after the one named, and deletes the files the agent
// created in those turns.
//
// Commands run through shell_exec can change anything. A Watcher takes a
// cheap fingerprint of the workspace (path, size, modification time,
// mode) before a foreground command and lists the files that differ
// after it; WatchTool records that list in the call's Result.Changed, so
// the store keeps it with the tool call. Undo reports those files and
// says plainly that it did not roll them back. Background jobs are not
// watched (they outlive the call); Undo lists their commands instead.
//
// Snapshots are read, and undo writes, reads and deletes, through the
// workspace's root (internal/tool/workspace): undo refuses a path whose
// folder became a link after the snapshot, and nothing it does reaches
// outside the workspace.
//
// Of godwit's packages it imports only internal/store, tool,
// internal/ignore and internal/tool/workspace.
package snapshot

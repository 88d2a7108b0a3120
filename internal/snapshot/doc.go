// Package snapshot makes the agent's file changes undoable.
//
// A Recorder keeps, before a file tool first writes a path in a turn, the
// path's previous content (or that it did not exist) in the store; it
// plugs into tool/fs as Options.BeforeWrite. Undo restores, byte for
// byte, the first snapshot of each path taken in a turn at or after the
// one named, and deletes the files the agent created in those turns.
//
// Shell commands can change anything: a Watcher fingerprints the
// workspace (path, size, modification time, mode) around a foreground
// shell_exec call and WatchTool records what differs in the call's
// Result.Changed. Undo reports those files, and the commands of
// background jobs, as not rolled back.
//
// Snapshots are read, and undo writes, reads and deletes, through the
// workspace's root (internal/tool/workspace): undo refuses a path whose
// folder became a link after the snapshot, and nothing it does reaches
// outside the workspace.
//
// Of godwit's packages it imports only internal/store, tool,
// internal/ignore and internal/tool/workspace.
package snapshot

package snapshot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/tool/workspace"
)

// ShellTool is the tool whose changes are watched, not snapshotted.
const ShellTool = "shell_exec"

// Report says what Undo did. Paths are absolute.
type Report struct {
	SessionID string
	FromTurn  int
	// Restored files got back their content from before FromTurn.
	Restored []string
	// Removed files were created by the agent since, and deleted.
	Removed []string
	// Unchanged files were already as they were before FromTurn.
	Unchanged []string
	// Failed lists files that could not be restored, with the reason.
	Failed []Failure
	// ShellChanged are files shell commands changed since FromTurn that
	// no snapshot covers: Undo did not roll them back.
	ShellChanged []string
	// Background are commands started as background jobs since
	// FromTurn; what they changed was not tracked.
	Background []string
}

// Failure is a file Undo could not restore.
type Failure struct {
	Path string
	Err  error
}

// Undo restores the session's files, byte for byte, to what they were
// before turn fromTurnSeq: for each path the agent's file tools wrote in
// that turn or later, the first snapshot is written back, and files that
// did not exist are deleted. It goes on past files it cannot restore and
// lists them in the report; the error is for the store only.
//
// Undo does not merge: changes a person made to those files after the
// agent wrote them are overwritten too.
func Undo(ctx context.Context, st *store.Store, sessionID string, fromTurnSeq int) (Report, error) {
	rep := Report{SessionID: sessionID, FromTurn: fromTurnSeq}
	snaps, err := st.Snapshots(ctx, sessionID, fromTurnSeq)
	if err != nil {
		return rep, fmt.Errorf("snapshot: undo: %w", err)
	}
	sess, err := st.Session(ctx, sessionID)
	if err != nil {
		return rep, fmt.Errorf("snapshot: undo: %w", err)
	}
	var ws *workspace.Workspace
	if len(snaps) > 0 {
		if ws, err = workspace.New(sess.Workspace); err != nil {
			return rep, fmt.Errorf("snapshot: undo: %w", err)
		}
		defer ws.Close()
	}
	done := map[string]bool{}
	var folders []string
	for _, s := range snaps {
		if done[s.Path] {
			continue // only the first snapshot is the state before
		}
		done[s.Path] = true
		if strings.HasSuffix(s.Path, string(filepath.Separator)) {
			folders = append(folders, s.Path)
			continue
		}
		switch outcome, err := restore(ws, s); {
		case err != nil:
			rep.Failed = append(rep.Failed, Failure{Path: s.Path, Err: err})
		case outcome == restored:
			rep.Restored = append(rep.Restored, s.Path)
		case outcome == removed:
			rep.Removed = append(rep.Removed, s.Path)
		default:
			rep.Unchanged = append(rep.Unchanged, s.Path)
		}
	}
	// Folders the file tools created go once empty, deepest first; one
	// holding anything else stays. Removed through the workspace: a
	// folder swapped for a link is not followed.
	slices.SortFunc(folders, func(a, b string) int { return len(b) - len(a) })
	for _, f := range folders {
		dir := strings.TrimSuffix(f, string(filepath.Separator))
		if fi, err := ws.Lstat(dir); err == nil && fi.IsDir() {
			_ = ws.Remove(dir)
		}
	}
	if err := shellChanges(ctx, st, sess, fromTurnSeq, done, &rep); err != nil {
		return rep, err
	}
	if len(rep.Restored)+len(rep.Removed) == 0 {
		return rep, nil
	}
	// Record it for the model: it still believes its changes are there,
	// and would edit files that no longer hold what it wrote.
	data, err := json.Marshal(struct {
		Type      string `json:"type"`
		SessionID string `json:"session_id"`
		Text      string `json:"text"`
	}{store.EventUndo, sessionID, rep.ForModel(sess.Workspace)})
	if err != nil {
		return rep, fmt.Errorf("snapshot: undo: %w", err)
	}
	if _, err := st.AppendEvent(ctx, store.Event{SessionID: sessionID, Type: store.EventUndo, Data: data}); err != nil {
		return rep, fmt.Errorf("snapshot: undo: recording it for the model: %w", err)
	}
	return rep, nil
}

// ForModel says what Undo did, for the model, with paths relative to the
// workspace ws when they are inside it.
func (r Report) ForModel(ws string) string {
	rel := func(ps []string) string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = p
			if q, err := filepath.Rel(ws, p); ws != "" && err == nil && filepath.IsLocal(q) {
				out[i] = filepath.ToSlash(q)
			}
		}
		return strings.Join(out, ", ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The user undid the file changes of turn %d and later: your edits to those files are gone.", r.FromTurn)
	if len(r.Restored) > 0 {
		fmt.Fprintf(&b, " Restored to before: %s.", rel(r.Restored))
	}
	if len(r.Removed) > 0 {
		fmt.Fprintf(&b, " Deleted (you had created them): %s.", rel(r.Removed))
	}
	if len(r.ShellChanged) > 0 {
		fmt.Fprintf(&b, " Not rolled back (shell commands changed them): %s.", rel(r.ShellChanged))
	}
	b.WriteString(" Read a file again before you edit it.")
	return b.String()
}

type outcome int

const (
	unchanged outcome = iota
	restored
	removed
)

// restore puts one file back through the session's workspace: nothing
// it writes, reads or deletes is outside it, whatever links are there now.
func restore(ws *workspace.Workspace, s store.FileSnapshot) (outcome, error) {
	if err := unmoved(ws, s.Path); err != nil {
		return unchanged, err
	}
	if !s.Existed {
		fi, err := ws.Lstat(s.Path)
		if errors.Is(err, fs.ErrNotExist) {
			return unchanged, nil
		}
		if err != nil {
			return unchanged, err
		}
		if fi.IsDir() {
			return unchanged, fmt.Errorf("the agent created a file here, but it is now a folder; left as it is")
		}
		return removed, ws.Remove(s.Path) // a link planted here goes, not its target
	}
	// Read no more than the snapshot holds: a command may have made the
	// file a sparse 4 GiB since, and a larger file differs anyway.
	cur, err := ws.ReadLimit(s.Path, int64(len(s.Content)))
	if err == nil && bytes.Equal(cur, s.Content) {
		return unchanged, nil
	}
	if err := writeBack(ws, s.Path, s.Content); err != nil {
		return unchanged, err
	}
	// Check every byte: this is what the user relies on.
	got, err := ws.ReadLimit(s.Path, int64(len(s.Content)))
	if err != nil {
		return unchanged, err
	}
	if sum := sha256.Sum256(got); s.Hash != "" && hex.EncodeToString(sum[:]) != s.Hash {
		return unchanged, fmt.Errorf("restored content does not match the snapshot's hash")
	}
	return restored, nil
}

// unmoved refuses a path whose folder is no longer the one snapshotted:
// the file tools snapshot paths with every link resolved, so a link on
// the way now was planted since (a folder swapped for a link to $HOME),
// and restoring through it would write or delete a file elsewhere.
func unmoved(ws *workspace.Workspace, path string) error {
	dir := filepath.Dir(path)
	real, err := ws.Resolve(dir)
	switch {
	case err != nil && errors.Is(err, workspace.ErrOutside) && ws.Inside(path):
		return fmt.Errorf("its folder %s is now a link to %s, outside the workspace; not restored through it", ws.Rel(dir), real)
	case err != nil:
		return fmt.Errorf("not restored: %w", err)
	case real != dir:
		return fmt.Errorf("its folder %s is now a link to %s; not restored through it", ws.Rel(dir), ws.Rel(real))
	}
	return nil
}

// writeBack replaces path with content through a temp file and a rename,
// keeping the mode of the file it replaces.
func writeBack(ws *workspace.Workspace, path string, content []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := ws.Lstat(path); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("the path is now a folder; left as it is")
		}
		if fi.Mode().IsRegular() {
			mode = fi.Mode().Perm()
		}
	}
	if err := ws.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return ws.Replace(path, mode, func(w io.Writer) error {
		_, err := w.Write(content)
		return err
	})
}

// shellChanges lists what shell commands changed since fromTurnSeq that
// no snapshot covered, and the background jobs started since.
func shellChanges(ctx context.Context, st *store.Store, sess store.Session, fromTurnSeq int, covered map[string]bool, rep *Report) error {
	calls, seqOf, err := shellCalls(ctx, st, sess.ID)
	if err != nil {
		return fmt.Errorf("snapshot: undo: %w", err)
	}
	for _, c := range calls {
		if seqOf[c.TurnID] < fromTurnSeq {
			continue
		}
		var a struct {
			Action     string `json:"action"`
			Command    string `json:"command"`
			Background bool   `json:"background"`
		}
		if json.Unmarshal(c.Args, &a) == nil && a.Background && (a.Action == "" || a.Action == "run") && c.Approval != "denied" {
			rep.Background = append(rep.Background, a.Command)
		}
		for _, p := range c.Changed {
			if !filepath.IsAbs(p) {
				p = filepath.Join(sess.Workspace, filepath.FromSlash(p))
			}
			if !covered[p] && !slices.Contains(rep.ShellChanged, p) {
				rep.ShellChanged = append(rep.ShellChanged, p)
			}
		}
	}
	slices.Sort(rep.ShellChanged)
	return nil
}

// LatestChange returns the number of the session's last turn that
// changed files (through file tools or shell commands), 0 when none did.
// It is the turn `godwit undo` and :undo revert by default.
func LatestChange(ctx context.Context, st *store.Store, sessionID string) (int, error) {
	snaps, err := st.Snapshots(ctx, sessionID, 0)
	if err != nil {
		return 0, fmt.Errorf("snapshot: %w", err)
	}
	latest := 0
	for _, s := range snaps {
		latest = max(latest, s.TurnSeq)
	}
	calls, seqOf, err := shellCalls(ctx, st, sessionID)
	if err != nil {
		return 0, fmt.Errorf("snapshot: %w", err)
	}
	for _, c := range calls {
		if len(c.Changed) > 0 {
			latest = max(latest, seqOf[c.TurnID])
		}
	}
	return latest, nil
}

// shellCalls returns the session's shell_exec calls and the number of
// each turn by its id.
func shellCalls(ctx context.Context, st *store.Store, sessionID string) ([]store.ToolCall, map[int64]int, error) {
	turns, err := st.Turns(ctx, sessionID)
	if err != nil {
		return nil, nil, err
	}
	seqOf := map[int64]int{}
	for _, t := range turns {
		seqOf[t.ID] = t.Seq
	}
	calls, err := st.ToolCalls(ctx, sessionID)
	return slices.DeleteFunc(calls, func(c store.ToolCall) bool { return c.Name != ShellTool }), seqOf, err
}

package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/godwit/godwit/internal/atomicfile"
)

// HistoryFile is the chat's input history under GODWIT_HOME.
const HistoryFile = "chat_history.jsonl"

// historyMax is how many inputs are kept, newest last.
const historyMax = 1000

// History is what the user sent in earlier chats, recalled with Up and
// Down, kept in a file across runs like a shell's: one JSON string a line
// (so multi-line inputs stay whole), mode 0600, appended as inputs are
// sent. The zero History keeps nothing.
type History struct {
	path  string
	lines []string
}

// LoadHistory reads the history at path; a missing file is an empty
// history. A file longer than historyMax is cut to its newest entries,
// and lines that do not decode (a write cut short) are skipped.
func LoadHistory(path string) (*History, error) {
	h := &History{path: path}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return h, fmt.Errorf("tui: reading the input history: %w", err)
	}
	for line := range bytes.Lines(b) {
		var s string
		if json.Unmarshal(line, &s) == nil && s != "" {
			h.lines = append(h.lines, s)
		}
	}
	if len(h.lines) > historyMax {
		h.lines = h.lines[len(h.lines)-historyMax:]
		if err := h.rewrite(); err != nil {
			return h, err
		}
	}
	return h, nil
}

// Lines returns the inputs, oldest first.
func (h *History) Lines() []string {
	if h == nil {
		return nil
	}
	return append([]string(nil), h.lines...)
}

// Add records line unless it repeats the newest entry.
func (h *History) Add(line string) error {
	if h == nil || h.path == "" || line == "" {
		return nil
	}
	if n := len(h.lines); n > 0 && h.lines[n-1] == line {
		return nil
	}
	h.lines = append(h.lines, line)
	b, err := json.Marshal(line)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("tui: saving the input history: %w", err)
	}
	f, err := os.OpenFile(h.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("tui: saving the input history: %w", err)
	}
	_, werr := f.Write(append(b, '\n'))
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("tui: saving the input history: %w", err)
	}
	return nil
}

// rewrite replaces the file with h.lines, atomically.
func (h *History) rewrite() error {
	var buf bytes.Buffer
	for _, l := range h.lines {
		b, _ := json.Marshal(l)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if err := atomicfile.WriteFile(h.path, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("tui: trimming the input history: %w", err)
	}
	return nil
}

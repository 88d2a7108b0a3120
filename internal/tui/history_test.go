package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm/fake"
)

func TestHistoryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", HistoryFile)
	h, err := LoadHistory(path)
	if err != nil || len(h.Lines()) != 0 {
		t.Fatalf("missing file: %v, %v", h.Lines(), err)
	}
	for _, l := range []string{"first", "two\nlines", "two\nlines", "", "third"} {
		if err := h.Add(l); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file: %v, %v; want mode 0600", fi, err)
	}
	// A write cut short leaves a line that does not decode: skipped.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\"unfinished\n")
	f.Close()
	again, err := LoadHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"first", "two\nlines", "third"}
	if got := again.Lines(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("reloaded = %q, want %q", got, want)
	}
	var nilHist *History
	if err := nilHist.Add("x"); err != nil || nilHist.Lines() != nil {
		t.Error("a nil History must keep nothing and fail nothing")
	}
}

func TestHistoryKeepsTheNewest(t *testing.T) {
	path := filepath.Join(t.TempDir(), HistoryFile)
	var b strings.Builder
	for i := range historyMax + 50 {
		fmt.Fprintf(&b, "%q\n", fmt.Sprint("input ", i))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := LoadHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := h.Lines()
	if len(lines) != historyMax || lines[0] != "input 50" || lines[len(lines)-1] != fmt.Sprint("input ", historyMax+49) {
		t.Errorf("kept %d lines, %q .. %q", len(lines), lines[0], lines[len(lines)-1])
	}
	again, _ := LoadHistory(path)
	if len(again.Lines()) != historyMax {
		t.Errorf("the file was not trimmed: %d lines", len(again.Lines()))
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("trimmed file mode %v, want 0600", fi.Mode().Perm())
	}
}

// Up recalls what was sent in the last chat, like a shell.
func TestHistoryOutlivesTheChat(t *testing.T) {
	path := filepath.Join(t.TempDir(), HistoryFile)
	hist, _ := LoadHistory(path)
	h := newHarness(t, fake.Step{Text: "one"})
	h.m = NewModel(context.Background(), h.ctl, ModelOptions{Theme: PlainTheme(), Now: h.clock.Now, Width: 80, Height: 24, History: hist})
	h.send("fix the parser")
	h.idle()

	next, _ := LoadHistory(path)
	h2 := newHarness(t)
	h2.m = NewModel(context.Background(), h2.ctl, ModelOptions{Theme: PlainTheme(), Now: h2.clock.Now, Width: 80, Height: 24, History: next})
	h2.press("up")
	if got := h2.m.input.Value(); got != "fix the parser" {
		t.Errorf("after up in a new chat: %q, want the last chat's input", got)
	}
}

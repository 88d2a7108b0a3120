package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/godwit/godwit/llm"
)

// What the user runs in the chat without the model: a command typed as
// !CMD, and the files named with @path in a message. Both go through the
// engine's runner (Engine.Exec): the session's policy and sandbox judge
// them as they judge the model's calls, and the path locks keep them
// from racing a call. Neither is part of the conversation: a command's
// output reaches the model with the next message, as a note; a file goes
// with the message that names it.

// ToolRun is the result of a call the user ran.
type ToolRun struct {
	Output   string
	IsError  bool
	Code     string // the error's code: DENIED, NOT_FOUND...
	ExitCode *int
}

// exec runs one call for the user; its events go to the chat's sink, so
// it shows as the model's calls do.
func (c *Controller) exec(ctx context.Context, name string, args any) (ToolRun, error) {
	eng, _, err := c.engine()
	if err != nil {
		return ToolRun{}, err
	}
	if eng.Exec == nil {
		return ToolRun{}, errors.New("tui: this chat cannot run tools itself")
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return ToolRun{}, fmt.Errorf("tui: %w", err)
	}
	call := llm.ToolCall{ID: fmt.Sprintf("user-%d", c.userCalls.Add(1)), Name: name, Args: raw}
	return eng.Exec(ctx, call, c.sink)
}

// Shell runs line (a !CMD) in the workspace, and keeps its output for the
// model to read with the next message.
func (c *Controller) Shell(ctx context.Context, line string) (ToolRun, error) {
	if c.Running() {
		return ToolRun{}, ErrBusy
	}
	r, err := c.exec(ctx, "shell_exec", map[string]string{"command": line})
	if err != nil {
		return r, err
	}
	note := fmt.Sprintf("the user ran `%s` in the workspace", line)
	if r.IsError {
		note += " and it failed (" + r.Code + ")"
	}
	c.mu.Lock()
	c.notes = append(c.notes, note+":\n"+strings.TrimRight(r.Output, "\n"))
	c.mu.Unlock()
	return r, nil
}

// Attachment is a file a message names with @path, read to go with it.
type Attachment struct {
	Path string // as the message names it
	// Part is what the model reads.
	Part llm.Part
	// Label is what the transcript says of it.
	Label string
}

// Attach reads the files prompt names with @path (a word that starts
// with @ and names a file of the workspace, or an absolute one). What
// could not be attached is said in problems; the message goes anyway.
func (c *Controller) Attach(ctx context.Context, prompt string) (atts []Attachment, problems []string) {
	seen := map[string]bool{}
	for _, p := range atPaths(prompt) {
		if seen[p] || !c.isFile(p) {
			continue
		}
		seen[p] = true
		a, err := c.attach(ctx, p)
		if err != nil {
			problems = append(problems, fmt.Sprintf("@%s not attached: %s", p, strings.TrimPrefix(err.Error(), "tui: ")))
			continue
		}
		atts = append(atts, a)
	}
	return atts, problems
}

// attach reads one file for a message: an image (by its extension) as
// itself, for the model to see; any other file as its text, or its first
// part within the model's share for one output, as file_read cuts it
// (with where to read on).
func (c *Controller) attach(ctx context.Context, path string) (Attachment, error) {
	if llm.IsImagePath(path) {
		abs := path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(c.Workspace(), abs)
		}
		p, err := llm.ReadImage(abs)
		if err != nil {
			return Attachment{}, errors.New(strings.TrimPrefix(err.Error(), abs+": "))
		}
		return Attachment{Path: path, Part: p, Label: "attached image " + path}, nil
	}
	r, err := c.exec(ctx, "file_read", map[string]string{"path": path})
	if err != nil {
		return Attachment{}, err
	}
	if r.IsError {
		line, _, _ := strings.Cut(strings.TrimSpace(r.Output), "\n")
		return Attachment{}, errors.New(line)
	}
	label := fmt.Sprintf("attached %s", path)
	if i := strings.LastIndex(r.Output, "\n[truncated: "); i >= 0 {
		label += ": its first part (" + strings.TrimSuffix(strings.TrimPrefix(r.Output[i+1:], "["), "]\n") + ")"
	}
	text := fmt.Sprintf("[the user attached %s]\n%s", path, r.Output)
	return Attachment{Path: path, Part: llm.TextPart(text), Label: label}, nil
}

// isFile reports whether p names a regular file, relative to the
// workspace or absolute.
func (c *Controller) isFile(p string) bool {
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.Workspace(), p)
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// atPaths returns the words of text that start with @, without it and
// without the punctuation that ends a sentence.
func atPaths(text string) []string {
	var out []string
	for _, w := range strings.Fields(text) {
		if p, ok := strings.CutPrefix(w, "@"); ok {
			if p = strings.TrimRight(p, ".,;:!?)\"'"); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

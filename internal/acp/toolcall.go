package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/tool/plan"
	"github.com/godwit/godwit/internal/tool/shell"
)

// maxDiffSide bounds the old file text a write's diff carries.
const maxDiffSide = 256 << 10

// call is what a session knows of one tool call of the running turn. Its
// mutable fields are guarded by the session's mu.
type call struct {
	id, name  string
	title     string
	kind      sdk.ToolKind
	locations []sdk.ToolCallLocation
	rawInput  any
	// diff is the call's change, for file_write and file_edit.
	diff []sdk.ToolCallContent
	// command is a shell call's command, whole: the title shows a line.
	command string

	terminal bool // its content is an editor terminal
	asked    bool // a permission request showed it with the reasons
	finished bool
}

// toolArgs are the argument fields the display uses, from any tool.
type toolArgs struct {
	Path       string `json:"path"`
	Content    string `json:"content"`
	OldText    string `json:"old_text"`
	NewText    string `json:"new_text"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"`
	Pattern    string `json:"pattern"`
	Action     string `json:"action"`
	Command    string `json:"command"`
	Background bool   `json:"background"`
	JobID      string `json:"job_id"`
}

// newCall describes a call from its arguments. live reads the file a
// file_write replaces, for the diff; a replayed call cannot know it.
func newCall(root, id, name string, raw json.RawMessage, summary string, live bool) *call {
	var a toolArgs
	var input any
	if err := json.Unmarshal(raw, &input); err == nil {
		_ = json.Unmarshal(raw, &a)
	} else {
		// Event args are cut at a few KB; the path is still worth showing.
		a.Path = pathField(string(raw))
	}
	c := &call{id: id, name: name, kind: toolKind(name), rawInput: input}
	c.title = title(name, a, summary)
	if a.Path != "" {
		loc := sdk.ToolCallLocation{Path: absPath(root, a.Path)}
		if name == "file_read" && a.StartLine > 0 {
			loc.Line = sdk.Ptr(a.StartLine)
		}
		c.locations = []sdk.ToolCallLocation{loc}
	}
	switch name {
	case shell.Name:
		c.command = a.Command
	case "file_edit":
		c.diff = []sdk.ToolCallContent{sdk.ToolDiffContent(absPath(root, a.Path), a.NewText, a.OldText)}
		if a.OldText == "" {
			c.diff = []sdk.ToolCallContent{sdk.ToolDiffContent(absPath(root, a.Path), a.NewText)}
		}
	case "file_write":
		abs := absPath(root, a.Path)
		if old, ok := oldText(abs); ok && live {
			c.diff = []sdk.ToolCallContent{sdk.ToolDiffContent(abs, a.Content, old)}
		} else {
			c.diff = []sdk.ToolCallContent{sdk.ToolDiffContent(abs, a.Content)}
		}
	}
	return c
}

// start is the tool_call that first shows the call.
func (c *call) start(status sdk.ToolCallStatus, content []sdk.ToolCallContent, raw any) sdk.SessionUpdate {
	if content == nil {
		content = c.diff
	}
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(c.kind), sdk.WithStartStatus(status), sdk.WithStartRawInput(c.rawInput)}
	if len(c.locations) > 0 {
		opts = append(opts, sdk.WithStartLocations(c.locations))
	}
	if len(content) > 0 {
		opts = append(opts, sdk.WithStartContent(content))
	}
	if raw != nil {
		opts = append(opts, sdk.WithStartRawOutput(raw))
	}
	return sdk.StartToolCall(sdk.ToolCallId(c.id), c.title, opts...)
}

// permissionView is the call as session/request_permission shows it:
// its diff or whole command, then why the policy asks ("reads .env, a secrets file"). The
// caller holds the session's mu.
func (c *call) permissionView(reasons []string) sdk.ToolCallUpdate {
	content := c.diff[:len(c.diff):len(c.diff)]
	if c.command != "" && !strings.Contains(c.title, c.command) {
		content = append(content, text(fence(c.command))...)
	}
	if len(reasons) > 0 {
		content = append(content, text("Needs approval: "+strings.Join(reasons, "; "))...)
		c.asked = true
	}
	return sdk.ToolCallUpdate{
		ToolCallId: sdk.ToolCallId(c.id),
		Title:      sdk.Ptr(c.title),
		Kind:       sdk.Ptr(c.kind),
		Status:     sdk.Ptr(sdk.ToolCallStatusPending),
		Locations:  c.locations,
		RawInput:   c.rawInput,
		Content:    content,
	}
}

// cut shortens s to about n bytes on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// result is the content a finished call shows; nil keeps what it shows
// already (a diff, a terminal). The caller holds the session's mu.
func (c *call) result(t *agent.ToolInfo) []sdk.ToolCallContent {
	c.finished = true
	out := strings.TrimRight(t.Output, "\n")
	switch {
	case t.IsError:
		if out == "" {
			out = "failed"
		}
		return text(out)
	case c.asked && c.diff != nil:
		return c.diff // without the reasons the question added
	case c.diff != nil || c.terminal || out == "":
		return nil
	case c.kind == sdk.ToolKindRead || c.kind == sdk.ToolKindExecute:
		return text(fence(out))
	}
	return text(out)
}

func text(s string) []sdk.ToolCallContent {
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(s))}
}

// fence wraps s in a Markdown code block longer than any fence inside.
func fence(s string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	return f + "\n" + s + "\n" + f
}

// toolKind maps a tool to the kind editors draw it with.
func toolKind(name string) sdk.ToolKind {
	switch name {
	case "file_read":
		return sdk.ToolKindRead
	case "file_write", "file_edit":
		return sdk.ToolKindEdit
	case "file_list", "grep", "recall", "search_memory":
		return sdk.ToolKindSearch
	case shell.Name:
		return sdk.ToolKindExecute
	case plan.Name, "subagent":
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther
}

// title is the one line an editor shows for a call: the approval
// summary when there is one, else a line built from the arguments.
func title(name string, a toolArgs, summary string) string {
	if summary != "" {
		return capitalize(summary)
	}
	switch name {
	case "file_read":
		return "Read " + orDot(a.Path)
	case "file_write":
		return "Write " + a.Path
	case "file_edit":
		return "Edit " + a.Path
	case "file_list":
		return "List " + orDot(a.Path)
	case "grep":
		t := "Search for " + oneLine(a.Pattern)
		if a.Path != "" {
			t += " in " + a.Path
		}
		return t
	case shell.Name:
		switch a.Action {
		case "", "run":
			return "Run: " + oneLine(a.Command)
		case "list":
			return "List background jobs"
		}
		return capitalize(a.Action) + " job " + a.JobID
	case plan.Name:
		return "Update the plan"
	}
	return name
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[n:]
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

// absPath makes a model path absolute, as ACP wants every path.
func absPath(root, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(root, p)
}

var pathRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"path"\s*:\s*"((?:[^"\\]|\\.)*)"`) })

// pathField finds the path argument in arguments cut short.
func pathField(raw string) string {
	m := pathRE().FindStringSubmatch(raw)
	if m == nil {
		return ""
	}
	var p string
	if err := json.Unmarshal([]byte(`"`+m[1]+`"`), &p); err != nil {
		return ""
	}
	return p
}

// oldText is a file's current text, for a write's diff: nothing for a
// missing, large or binary file.
func oldText(abs string) (string, bool) {
	fi, err := os.Stat(abs)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxDiffSide {
		return "", false
	}
	b, err := os.ReadFile(abs)
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

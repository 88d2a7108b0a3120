package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/tool"
)

//go:embed grep.md
var grepDesc string

const grepSchema = `{"type":"object","properties":{
"pattern":{"type":"string"},
"path":{"type":"string","description":"File or folder (default: workspace root)."},
"glob":{"type":"string","description":"Only files matching, e.g. *.go or src/**/*.ts; without / it matches the file name."},
"ignore_case":{"type":"boolean"},
"context":{"type":"integer","description":"Lines shown around each match (default 0)."},
"no_ignore":{"type":"boolean","description":"Also search gitignored files, vendor/ and node_modules/."},
"max_results":{"type":"integer","description":"Max matching lines (default 200)."}
},"required":["pattern"]}`

const grepFields = "pattern, optional path, glob, ignore_case, context, no_ignore, max_results"

const (
	defaultMaxResults = 200
	maxMaxResults     = 5000
	maxContext        = 20
	// maxGrepOutput caps the text the model reads, whatever the counts.
	maxGrepOutput = 64 << 10
	// maxGrepFile: larger files (logs, dumps) are skipped and reported.
	maxGrepFile = 64 << 20
)

// Grep is the grep tool.
type Grep struct{ walking }

// NewGrep returns the grep tool.
func NewGrep(ws *workspace.Workspace) *Grep { return newGrep(ws, nil) }

func newGrep(ws *workspace.Workspace, hidden func(string, string) bool) *Grep {
	return &Grep{walking{base{ws: ws, spec: newSpec("grep", grepDesc, grepSchema)}, hidden}}
}

type grepArgs struct {
	Pattern    *string `json:"pattern"`
	Path       string  `json:"path"`
	Glob       string  `json:"glob"`
	IgnoreCase bool    `json:"ignore_case"`
	Context    int     `json:"context"`
	NoIgnore   bool    `json:"no_ignore"`
	MaxResults int     `json:"max_results"`
}

func (t *Grep) parse(raw json.RawMessage) (grepArgs, error) {
	var a grepArgs
	if err := decodeArgs(raw, &a, grepFields); err != nil {
		return a, err
	}
	switch {
	case a.Pattern == nil || *a.Pattern == "":
		return a, missing("pattern", grepFields)
	case a.Context < 0 || a.Context > maxContext:
		return a, tool.Errorf(tool.CodeBadArgs, fmt.Sprintf("Send context between 0 and %d.", maxContext), "context is %d", a.Context)
	case a.MaxResults < 0 || a.MaxResults > maxMaxResults:
		return a, tool.Errorf(tool.CodeBadArgs, fmt.Sprintf("Send max_results between 1 and %d, or leave it out for %d.", maxMaxResults, defaultMaxResults),
			"max_results is %d", a.MaxResults)
	case a.Glob != "" && !doublestar.ValidatePattern(a.Glob):
		return a, tool.Errorf(tool.CodeBadArgs, "Send a glob such as *.go, **/*_test.go or src/**/*.{ts,tsx}.", "bad glob %q", a.Glob)
	}
	if a.MaxResults == 0 {
		a.MaxResults = defaultMaxResults
	}
	return a, nil
}

// Access declares the searched path as read.
func (t *Grep) Access(raw json.RawMessage) (tool.Access, error) {
	a, err := t.parse(raw)
	if err != nil {
		return tool.Access{}, err
	}
	abs, err := t.ws.Resolve(a.Path)
	if err != nil {
		return tool.Access{}, err
	}
	return tool.Access{Paths: []tool.PathAccess{{Path: abs}}, Summary: fmt.Sprintf("grep %q in %s", *a.Pattern, t.ws.Rel(abs))}, nil
}

// Run searches a file, or a folder tree in parallel.
func (t *Grep) Run(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	a, err := t.parse(raw)
	if err != nil {
		return tool.Result{}, err
	}
	m, err := newMatcher(*a.Pattern, a.IgnoreCase)
	if err != nil {
		return tool.Result{}, err
	}
	abs, rel, fi, err := t.stat(ctx, a.Path)
	if err != nil {
		return tool.Result{}, err
	}
	q := query{t: &t.walking, m: m, ctx: a.Context, limit: a.MaxResults, glob: a.Glob, noIgnore: a.NoIgnore}
	if !fi.IsDir() {
		if err := checkRegular(fi, rel); err != nil {
			return tool.Result{}, err
		}
		var buf []byte
		r := q.searchFile(abs, rel, &buf)
		if r.err != nil {
			return tool.Result{}, relErr(r.err, rel)
		}
		if r.binary {
			return tool.Result{Content: rel + " is a binary file; not searched"}, nil
		}
		if r.linked {
			return tool.Result{Content: rel + " has another name (a hard link), which may be a secret; not searched. file_read it to ask the user"}, nil
		}
		return tool.Result{Content: q.render([]fileResult{r}, stats{files: 1, more: r.matches >= q.limit})}, nil
	}
	results, st, err := q.walk(ctx, abs, rel, t.ws.Root())
	if err != nil {
		return tool.Result{}, err
	}
	return tool.Result{Content: q.render(results, st)}, nil
}

// render formats results grouped by file, at most limit matches and
// maxGrepOutput bytes.
func (q *query) render(results []fileResult, st stats) string {
	limit := q.limit
	var b strings.Builder
	shown, cut := 0, false
	for _, r := range results {
		if shown >= limit {
			cut = true
			break
		}
		if len(r.lines) == 0 {
			continue
		}
		b.WriteString(r.rel)
		b.WriteByte('\n')
		owed := -1 // after the last allowed match: context lines still shown
		for _, l := range r.lines {
			if b.Len() > maxGrepOutput {
				fmt.Fprintf(&b, "[output cut at %d KB; narrow the pattern, path or glob]\n", maxGrepOutput>>10)
				return b.String()
			}
			if owed >= 0 && (l.kind != '-' || owed == 0) {
				cut = true
				break
			}
			switch l.kind {
			case 0:
				b.WriteString("--\n")
				continue
			case ':':
				shown++
				if shown == limit {
					owed = q.ctx
				}
			case '-':
				if owed > 0 {
					owed--
				}
			}
			b.WriteString(strconv.Itoa(l.num))
			b.WriteByte(l.kind)
			b.WriteString(l.text)
			b.WriteByte('\n')
		}
	}
	switch {
	case shown == 0:
		fmt.Fprintf(&b, "no matches (%s searched", plural(st.files, "file"))
		if st.binary > 0 {
			fmt.Fprintf(&b, ", %d binary skipped", st.binary)
		}
		b.WriteString(")\n")
	case cut || st.more && shown >= limit:
		fmt.Fprintf(&b, "[limit of %d matching lines reached; narrow the pattern, path or glob, or raise max_results]\n", limit)
	}
	if len(st.large) > 0 {
		fmt.Fprintf(&b, "[skipped files over %d MB: %s]\n", maxGrepFile>>20, strings.Join(st.large, ", "))
	}
	if len(st.secrets) > 0 {
		fmt.Fprintf(&b, "[not searched, they may hold secrets: %s; file_read one by name to ask the user]\n", strings.Join(st.secrets, ", "))
	}
	if n := len(st.ruled); n > 0 {
		shown := st.ruled[:min(n, 10)]
		more := ""
		if n > len(shown) {
			more = fmt.Sprintf(" and %d more", n-len(shown))
		}
		fmt.Fprintf(&b, "[not searched, the user's rules deny or ask about them: %s%s]\n", strings.Join(shown, ", "), more)
	}
	return b.String()
}

// globMatch applies the glob to the workspace-relative path, or to the
// file name when the glob has no slash (as ripgrep's -g does).
func globMatch(glob, rel string) bool {
	if glob == "" {
		return true
	}
	target := rel
	if !strings.Contains(glob, "/") {
		target = path.Base(rel)
	}
	ok, _ := doublestar.Match(glob, target)
	return ok
}

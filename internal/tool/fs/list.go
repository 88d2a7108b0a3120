package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	iofs "io/fs"
	"path/filepath"
	"strings"

	"github.com/godwit/godwit/internal/tool/workspace"
	"github.com/godwit/godwit/tool"
)

//go:embed file_list.md
var listDesc string

const listSchema = `{"type":"object","properties":{
"path":{"type":"string","description":"Folder (default: workspace root)."},
"depth":{"type":"integer","description":"Levels to expand (default 2)."}
}}`

const listFields = "optional path and depth"

const (
	defaultDepth = 2
	// maxListEntries caps the tree. Levels are expanded breadth first, so
	// a capped listing still shows the top of the tree.
	maxListEntries = 400
)

// List is the file_list tool.
type List struct{ walking }

func newList(ws *workspace.Workspace, hidden func(string, string) bool) *List {
	return &List{walking{base{ws: ws, spec: newSpec("file_list", listDesc, listSchema)}, hidden}}
}

type listArgs struct {
	Path  string `json:"path"`
	Depth *int   `json:"depth"`
}

func (t *List) parse(raw json.RawMessage) (listArgs, int, error) {
	var a listArgs
	if err := decodeArgs(raw, &a, listFields); err != nil {
		return a, 0, err
	}
	depth := defaultDepth
	if a.Depth != nil {
		if *a.Depth < 1 {
			return a, 0, tool.Errorf(tool.CodeBadArgs, "Send depth 1 or more (1 lists only the folder's own entries).", "depth is %d", *a.Depth)
		}
		depth = *a.Depth
	}
	return a, depth, nil
}

// Access declares the folder as read.
func (t *List) Access(raw json.RawMessage) (tool.Access, error) {
	a, _, err := t.parse(raw)
	if err != nil {
		return tool.Access{}, err
	}
	abs, err := t.ws.Resolve(a.Path)
	if err != nil {
		return tool.Access{}, err
	}
	return tool.Access{Paths: []tool.PathAccess{{Path: abs}}, Summary: "list " + t.ws.Rel(abs)}, nil
}

// node is one entry of the tree.
type node struct {
	name     string
	dir      bool
	link     string // symlink target, not followed
	note     string // "skipped" for node_modules/vendor
	children []*node
	expanded bool
	files    int // counts for folders not expanded
	dirs     int
	rules    *ignoreRules
}

// Run lists the folder breadth first, expanding levels while the entry
// budget lasts, then prints the tree depth first.
func (t *List) Run(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	a, depth, err := t.parse(raw)
	if err != nil {
		return tool.Result{}, err
	}
	abs, rel, fi, err := t.stat(ctx, a.Path)
	if err != nil {
		return tool.Result{}, err
	}
	if !fi.IsDir() {
		return tool.Result{}, tool.Errorf(tool.CodeNotDir, "Use file_read to read a file.", "%s is a file, not a folder", rel)
	}
	root := &node{name: rel, dir: true, rules: loadIgnore(t.ws.Root(), abs, false)}
	ignored, total, ruled := 0, 0, 0
	truncated := false
	level := []*node{root}
	paths := map[*node]string{root: abs}
	for d := 1; d <= depth+1 && len(level) > 0; d++ {
		var next []*node
		for _, n := range level {
			if err := ctx.Err(); err != nil {
				return tool.Result{}, err
			}
			kids, ign, hidden, err := t.kids(paths[n], n.rules)
			ruled += hidden
			if err != nil {
				if n == root {
					return tool.Result{}, relErr(err, rel)
				}
				n.note = "unreadable"
				continue
			}
			if d > depth || truncated || total+len(kids) > maxListEntries {
				// Counts only: past the depth, or out of budget.
				if d <= depth {
					truncated = true
				}
				for _, k := range kids {
					if k.dir {
						n.dirs++
					} else {
						n.files++
					}
				}
				continue
			}
			n.expanded, n.children = true, kids
			total += len(kids)
			ignored += ign
			for _, k := range kids {
				if k.dir && k.note == "" {
					k.rules = n.rules.child(k.name)
					paths[k] = filepath.Join(paths[n], k.name)
					next = append(next, k)
				}
			}
		}
		level = next
	}
	var out strings.Builder
	for _, k := range root.children {
		printNode(&out, k, 0)
	}
	if len(root.children) == 0 {
		out.WriteString("[empty folder]\n")
	}
	if truncated {
		fmt.Fprintf(&out, "[truncated at %d entries; list a subfolder or use a smaller depth]\n", maxListEntries)
	}
	entries := func(n int) string {
		if n == 1 {
			return "entry"
		}
		return "entries"
	}
	if ignored > 0 {
		fmt.Fprintf(&out, "[%d gitignored %s not shown]\n", ignored, entries(ignored))
	}
	if ruled > 0 {
		fmt.Fprintf(&out, "[%d %s not shown: the user's rules deny or ask about them]\n", ruled, entries(ruled))
	}
	return tool.Result{Content: out.String()}, nil
}

// kids reads a folder's entries as nodes (see walking.entries), and
// says how many gitignored entries and entries Options.Hidden names it
// dropped. node_modules and vendor are kept as unexpanded "skipped"
// entries so the model knows they exist.
func (t *List) kids(dir string, rules *ignoreRules) (kids []*node, ignored, hidden int, err error) {
	ents, ignored, err := t.entries(dir, ".", rules, "", true)
	for _, e := range ents {
		k := &node{name: e.Name(), dir: e.IsDir()}
		switch {
		case e.ruled:
			hidden++
			continue
		case k.dir && skippedDirs[k.name]:
			k.note = "skipped"
		case e.Type()&iofs.ModeSymlink != 0:
			k.link, _ = t.ws.Readlink(filepath.Join(dir, k.name))
		}
		kids = append(kids, k)
	}
	return kids, ignored, hidden, err
}

func printNode(out *strings.Builder, n *node, indent int) {
	for range indent {
		out.WriteString("  ")
	}
	out.WriteString(n.name)
	switch {
	case n.link != "":
		out.WriteString(" -> " + n.link)
	case n.dir:
		out.WriteByte('/')
	}
	switch {
	case n.note != "":
		out.WriteString(" (" + n.note + ")")
	case n.dir && !n.expanded:
		fmt.Fprintf(out, " (%s, %s)", plural(n.files, "file"), plural(n.dirs, "dir"))
	}
	out.WriteByte('\n')
	for _, k := range n.children {
		printNode(out, k, indent+1)
	}
}

// Package ignore reads gitignore files and matches paths against them,
// for the file tools' walks (internal/tool/fs) and the shell watcher's
// (internal/snapshot), so both skip what git would. Pattern semantics
// (negation, anchoring, "**", dir-only, the domain of a nested file) are
// go-git's; reading a file (comments, blank lines, CRLF) is git's.
//
// Of godwit's packages it imports only internal/regfile.
package ignore

import (
	"bufio"
	"bytes"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/godwit/godwit/internal/regfile"
)

// Rules are patterns in increasing priority: the last that matches a
// path decides.
type Rules []gitignore.Pattern

// Read parses one ignore file whose patterns hold below domain (the
// file's folder, as path parts relative to the walk's root; nil at the
// root). A missing or unreadable file has no patterns, and so has one
// git would not read either: a link (git follows none for .gitignore),
// what is not a regular file (a FIFO would wait for a writer forever, a
// link to /dev/zero never end), or one over MaxSize.
func Read(path string, domain []string) Rules {
	data, err := readFile(path)
	if err != nil {
		return nil
	}
	domain = slices.Clone(domain)
	var rs Rules
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		rs = append(rs, gitignore.ParsePattern(line, domain))
	}
	return rs
}

// MaxSize is the largest ignore file read: git's own bound
// (PATTERN_MAX_FILE_SIZE).
const MaxSize = 100 << 20

// readFile reads an ignore file as git does: not through a link in its
// last element.
func readFile(path string) ([]byte, error) { return regfile.ReadNoFollow(path, MaxSize) }

// Then returns r followed by more, which take priority; r's own backing
// array is never written, so rules shared by sibling folders stay as
// they were.
func (r Rules) Then(more Rules) Rules {
	if len(more) == 0 {
		return r
	}
	return append(slices.Clip(r), more...)
}

// Ignored reports whether path (its parts relative to the walk's root)
// is excluded.
func (r Rules) Ignored(path []string, isDir bool) bool {
	for i := len(r) - 1; i >= 0; i-- {
		if m := r[i].Match(path, isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
	}
	return false
}

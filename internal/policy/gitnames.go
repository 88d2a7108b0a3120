package policy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// A git read limited to named files (git show HEAD~1:docs/a.txt, git
// log -p -- docs/a.txt, git blame REV -- docs/a.txt) prints those files
// as they were in the history, under every name they had: a key
// committed as id_rsa and later moved to docs/a.txt prints through the
// innocent name. So the names the files had are screened too. They come
// from the rename graph of every commit reachable from the refs and from
// the revisions the command names (git log --all -M --diff-filter=R),
// closed backwards from each named file: a superset of what --follow
// finds, which a crafted history of branches and merges can mislead.
// Renames are as git detects them (50% similar); a copy or a rewrite
// under a new name is a new file to git and is not followed.

// histFile is one file a git command prints from the history: path is
// relative to the repository's top folder.
type histFile struct {
	root, path string
	// tips are revisions the command walks from besides the refs.
	tips []string
	// unknown says why the commits walked cannot be listed ("" if they can).
	unknown string
}

// gitNamesTimeout and gitNamesMax bound the rename scan: beyond them the
// command asks, as it would without the screen.
const (
	gitNamesTimeout = 2 * time.Second
	gitNamesMax     = 8 << 20
)

// renameGraph maps a name to the names renamed into it, anywhere in the
// history scanned.
type renameGraph map[string][]string

type renameScan struct {
	g   renameGraph
	err error
}

// historyItems screens the former names of the files a git history read
// prints: secrets ask (read-only and ask modes), names a path rule covers
// are judged by it. Nothing runs in --yes mode without path rules.
func (p *Policy) historyItems(toolName string, c SimpleCommand, ro roResult) []item {
	rules := p.pathRules(toolName)
	if len(ro.histFiles) == 0 || (p.mode == Auto && !rules) {
		return nil
	}
	what := "runs `" + render(c.Words) + "`"
	var out []item
	for _, h := range ro.histFiles {
		if h.unknown != "" {
			out = append(out, item{kind: kindPath, level: levelSensitive,
				what: what + ", which prints " + h.path + " from git's history, and " + h.unknown + ", so its former names cannot be checked for secrets"})
			continue
		}
		g, err := p.renames(h.root, h.tips)
		if err != nil {
			out = append(out, item{kind: kindPath, level: levelSensitive,
				what: what + ", which prints " + h.path + " from git's history, whose former names could not be checked for secrets (" + err.Error() + ")"})
			continue
		}
		for _, old := range g.formerNames(h.path) {
			abs := filepath.Join(h.root, filepath.FromSlash(old))
			switch {
			case isSecret(old):
				out = append(out, item{kind: kindPath, level: levelSensitive,
					what: what + ", which prints " + h.path + " from git's history, where it was " + old + ", a secrets file"})
			case rules && p.pathRuled(toolName, abs):
				it := p.pathItem(toolName, abs, false)
				it.what = what + ", which prints " + h.path + " from git's history, where it was " + old
				out = append(out, it)
			}
		}
	}
	return out
}

// formerNames are the names renamed into name, transitively.
func (g renameGraph) formerNames(name string) []string {
	var out []string
	seen := map[string]bool{name: true}
	for queue := []string{name}; len(queue) > 0; queue = queue[1:] {
		for _, old := range g[queue[0]] {
			if !seen[old] {
				seen[old] = true
				out = append(out, old)
				queue = append(queue, old)
			}
		}
	}
	return out
}

// renames scans the rename graph of the repository at root, cached per
// state of its refs (HEAD, the branches, packed refs) and tips.
func (p *Policy) renames(root string, tips []string) (renameGraph, error) {
	key := refsStamp(gitDirOf(root)) + "\x00" + root + "\x00" + strings.Join(tips, "\x00")
	p.histMu.Lock()
	defer p.histMu.Unlock()
	if s, ok := p.histCache[key]; ok {
		return s.g, s.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitNamesTimeout)
	defer cancel()
	g, err := scanRenames(ctx, root, tips)
	if p.histCache == nil {
		p.histCache = map[string]renameScan{}
	}
	p.histCache[key] = renameScan{g, err}
	return g, err
}

// scanRenames runs git log over every commit reachable from the refs and
// tips, with git's configuration neutralised: no system or global
// config, no pager, no external diff or textconv, no signature checks,
// no lazy fetches of a partial clone (no transport at all), no prompts.
func scanRenames(ctx context.Context, root string, tips []string) (renameGraph, error) {
	args := []string{"--no-pager", "-c", "core.fsmonitor=false", "-c", "log.showSignature=false", "-c", "diff.renames=true",
		"-c", "diff.renameLimit=0", "-c", "core.quotePath=false", "-c", "protocol.allow=never", "-c", "core.sshCommand=false",
		"log", "--all", "-M", "--diff-merges=separate", "--diff-filter=R", "--name-status", "--format=", "-z",
		"--no-ext-diff", "--no-textconv", "--end-of-options"}
	args = append(args, tips...)
	args = append(args, "--")
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = root
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent",
		"GIT_TERMINAL_PROMPT=0", "GIT_NO_LAZY_FETCH=1", "GIT_SSH_COMMAND=false", "GIT_ASKPASS=false", "SSH_ASKPASS=false", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "PAGER=cat", "LC_ALL=C",
		"GIT_CEILING_DIRECTORIES=" + filepath.Dir(root)}
	out, errOut := &capped{max: gitNamesMax}, &capped{max: 4096}
	cmd.Stdout, cmd.Stderr = out, errOut
	err := cmd.Run()
	switch {
	case out.over:
		return nil, fmt.Errorf("git's list of renames is over %d MiB", gitNamesMax>>20)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("git took over %s to list the renames", gitNamesTimeout)
	case err != nil:
		msg := strings.TrimSpace(errOut.buf.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git: %s", oneLine(msg, 120))
	}
	return parseRenames(out.buf.Bytes())
}

// parseRenames reads git's -z --name-status output of renames:
// "R100\0old\0new\0" each.
func parseRenames(b []byte) (renameGraph, error) {
	g := renameGraph{}
	f := bytes.Split(bytes.TrimRight(b, "\x00"), []byte{0})
	for i := 0; i < len(f); {
		st := strings.TrimLeft(string(f[i]), "\n")
		switch {
		case st == "":
			i++
		case st[0] == 'R' || st[0] == 'C':
			if i+2 >= len(f) {
				return nil, errors.New("git printed a rename without its two names")
			}
			old, new := string(f[i+1]), string(f[i+2])
			g[new] = append(g[new], old)
			i += 3
		default:
			i += 2 // another status: one name
		}
	}
	return g, nil
}

// refsStamp identifies the state of a repository's refs: what HEAD and
// the branch it names hold, and when the packed refs, the reflog and the
// ref folders last changed.
func refsStamp(gd string) string {
	if gd == "" {
		return ""
	}
	dirs := []string{gd}
	if b, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gd, c)
		}
		dirs = append(dirs, c)
	}
	var sb strings.Builder
	head, _ := os.ReadFile(filepath.Join(gd, "HEAD"))
	sb.Write(head)
	ref, isRef := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	for _, d := range dirs {
		if isRef {
			b, _ := os.ReadFile(filepath.Join(d, filepath.FromSlash(ref)))
			sb.Write(b)
		}
		for _, f := range []string{"packed-refs", "logs/HEAD", "refs/heads", "refs/tags", "refs/remotes", "refs"} {
			if fi, err := os.Stat(filepath.Join(d, filepath.FromSlash(f))); err == nil {
				fmt.Fprintf(&sb, "|%s %d %d", f, fi.Size(), fi.ModTime().UnixNano())
			}
		}
	}
	return sb.String()
}

// capped keeps at most max bytes and notes when more came.
type capped struct {
	max  int
	buf  bytes.Buffer
	over bool
}

func (c *capped) Write(b []byte) (int, error) {
	if c.buf.Len()+len(b) > c.max {
		c.over = true
		return 0, errors.New("output too long")
	}
	return c.buf.Write(b)
}

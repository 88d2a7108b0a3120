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

// A git read limited to named files prints them under every name they
// had (id_rsa later renamed docs/a.txt), so former names are screened
// too, across all branches (log --follow loses names another branch had).

// histFile is one file a git command prints from the history: path is
// relative to the repository's top folder.
type histFile struct {
	root, path string
	// tips are revisions the command walks from besides the refs.
	tips []string
	// unknown says why the commits walked cannot be listed ("" if they can).
	unknown string
}

// gitNamesTimeout and gitNamesMax bound each git command the policy
// runs (a rename scan, a listing of the index): beyond them the command
// judged asks, as it would without the screen.
const (
	gitNamesTimeout = 2 * time.Second
	gitNamesMax     = 32 << 20
)

// renameGraph maps a name to the names renamed into it in the commits
// scanned.
type renameGraph map[string][]string

// historyItems screens the former names of the files a git history read
// prints: secrets ask, names a path rule covers are judged by it.
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
		names, err := formerNames(p.hostPath, h.root, h.tips, h.path)
		if err != nil {
			out = append(out, item{kind: kindPath, level: levelSensitive,
				what: what + ", which prints " + h.path + " from git's history, whose former names could not be checked for secrets (" + err.Error() + ")"})
			continue
		}
		for _, old := range names {
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

// formerNames are the names path had in the history of the repository
// at root, walking from tips besides the refs.
func formerNames(hostPath, root string, tips []string, path string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitNamesTimeout)
	defer cancel()
	return scanFormerNames(ctx, hostPath, root, tips, path)
}

// gitNamesRounds bounds how many renames back a name is followed.
const gitNamesRounds = 50

// scanFormerNames walks renames back from name, a round per rename: the
// commits that add one of the names found so far (cheap, limited to those
// paths), then git's rename detection over those commits only.
func scanFormerNames(ctx context.Context, path, root string, tips []string, name string) ([]string, error) {
	seen := map[string]bool{name: true}
	var out []string
	for frontier, round := []string{name}, 0; len(frontier) > 0; round++ {
		if round == gitNamesRounds {
			return nil, fmt.Errorf("%s was renamed over %d times", name, gitNamesRounds)
		}
		args := append([]string{"log", "--all", "--full-history", "-m", "--diff-filter=A", "--format=%H %P", "--end-of-options"}, tips...)
		adds, err := runGit(ctx, path, root, "", append(append(args, "--"), frontier...)...)
		if err != nil {
			return nil, err
		}
		hashes := addingCommits(adds)
		if len(hashes) == 0 {
			break
		}
		renames, err := runGit(ctx, path, root, strings.Join(hashes, "\n")+"\n",
			"log", "--no-walk=unsorted", "--stdin", "-m", "-M", "--diff-filter=R", "--name-status", "--format=", "-z")
		if err != nil {
			return nil, err
		}
		g, err := parseRenames(renames)
		if err != nil {
			return nil, err
		}
		var next []string
		for _, f := range frontier {
			for _, old := range g[f] {
				if !seen[old] {
					seen[old] = true
					out = append(out, old)
					next = append(next, old)
				}
			}
		}
		frontier = next
	}
	return out, nil
}

// addingCommits are the commits of git log -m --format='%H %P' output
// that add a name: those with one parent or none, and merges that add it
// against each parent. A merge adding it against some parents only took
// it from a branch whose own commits are listed (and costs most of the
// scan against a parent far behind).
func addingCommits(out []byte) []string {
	seen, parents := map[string]int{}, map[string]int{}
	var order []string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if seen[f[0]] == 0 {
			order = append(order, f[0])
		}
		seen[f[0]]++
		parents[f[0]] = len(f) - 1
	}
	var hashes []string
	for _, h := range order {
		if seen[h] >= parents[h] {
			hashes = append(hashes, h)
		}
	}
	return hashes
}

// runGit runs git in root with its configuration neutralised: nothing
// runs, nothing is fetched, nothing prompts; paths are literal. git is
// found on path (hostPath), which it runs with.
func runGit(ctx context.Context, path, root, stdin string, args ...string) ([]byte, error) {
	pre := []string{"--no-pager", "--literal-pathspecs", "-c", "core.fsmonitor=false", "-c", "log.showSignature=false",
		"-c", "diff.renames=true", "-c", "core.quotePath=false", "-c", "protocol.allow=never",
		"-c", "core.sshCommand=false", "-c", "log.follow=false"}
	git := ""
	for _, d := range filepath.SplitList(path) {
		if fi, err := os.Stat(filepath.Join(d, "git")); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			git = filepath.Join(d, "git")
			break
		}
	}
	if git == "" {
		return nil, errors.New("git is not on PATH outside the workspace")
	}
	cmd := exec.CommandContext(ctx, git, append(pre, args...)...)
	cmd.Dir = root
	cmd.Env = []string{"PATH=" + path, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent",
		"GIT_TERMINAL_PROMPT=0", "GIT_NO_LAZY_FETCH=1", "GIT_SSH_COMMAND=false", "GIT_ASKPASS=false", "SSH_ASKPASS=false",
		"GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "PAGER=cat", "LC_ALL=C", "GIT_CEILING_DIRECTORIES=" + filepath.Dir(root)}
	cmd.Stdin = strings.NewReader(stdin)
	out, errOut := &capped{max: gitNamesMax}, &capped{max: 4096}
	cmd.Stdout, cmd.Stderr = out, errOut
	err := cmd.Run()
	switch {
	case out.over:
		return nil, fmt.Errorf("git's answer is over %d MiB", gitNamesMax>>20)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("git took over %s to answer", gitNamesTimeout)
	case err != nil:
		msg := strings.TrimSpace(errOut.buf.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git: %s", oneLine(msg, 120))
	}
	return out.buf.Bytes(), nil
}

// indexNames are the paths git's index tracks in the repository dir is
// in, as git ls-files lists them (any index format, split or sparse):
// none without a repository or an index, an error when git cannot read
// it, so nothing is ruled out.
func indexNames(path, dir string) ([]string, error) {
	root, gd := repoRoot(dir), gitDirOf(dir)
	if _, err := os.Lstat(filepath.Join(gd, "index")); root == "" || gd == "" || os.IsNotExist(err) {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitNamesTimeout)
	defer cancel()
	out, err := runGit(ctx, path, root, "", "ls-files", "-z", "--cached")
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"), nil
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

// hostPath is godwit's PATH without folders of the workspace root and
// relative entries: what the policy runs, it runs outside any sandbox,
// so never a git the workspace holds (direnv's PATH_add bin).
func hostPath(root string) string {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if filepath.IsAbs(d) && !within(root, kernelPath(d)) {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

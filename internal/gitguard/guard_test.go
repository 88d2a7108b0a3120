package gitguard

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// sandbox is a repository in a temp dir, with a home of its own so the
// user's real git config is never read or written.
type sandbox struct {
	t          *testing.T
	home, repo string
	env        []string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	base := t.TempDir()
	s := &sandbox{t: t, home: filepath.Join(base, "home"), repo: filepath.Join(base, "repo")}
	for _, d := range []string{s.home, s.repo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "GIT_") && k != "HOME" && k != "XDG_CONFIG_HOME" {
			s.env = append(s.env, kv)
		}
	}
	s.env = append(s.env, "HOME="+s.home, "XDG_CONFIG_HOME="+filepath.Join(s.home, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	return s
}

func (s *sandbox) sh(dir, script string) string {
	s.t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return string(out)
}

func (s *sandbox) guard(ws string) *Guard {
	return New(Options{Workspace: ws, Home: s.home, Getenv: func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return filepath.Join(s.home, ".config")
		}
		return ""
	}})
}

func read(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRestoresWhatCommandsChange(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("hook modes and symbolic links")
	}
	tests := []struct {
		name   string
		script string
		want   string // in Summary
	}{
		{"a hook copied in", `printf '#!/bin/sh\necho pwned\n' > evil && cp evil .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`, ".git/hooks/pre-commit (added)"},
		{"a hook moved in", `printf 'x' > evil && mv evil .git/hooks/post-checkout`, ".git/hooks/post-checkout (added)"},
		{"a hook through tee", `echo evil | tee .git/hooks/pre-push >/dev/null`, ".git/hooks/pre-push (added)"},
		{"a sample edited", `echo evil >> .git/hooks/pre-commit.sample`, ".git/hooks/pre-commit.sample (changed)"},
		{"a sample made executable", `chmod 777 .git/hooks/update.sample`, ".git/hooks/update.sample (mode changed)"},
		{"a sample deleted", `rm .git/hooks/update.sample`, ".git/hooks/update.sample (deleted)"},
		{"the hooks folder replaced", `rm -rf .git/hooks && mkdir elsewhere && ln -s "$PWD/elsewhere" .git/hooks`, ".git/hooks (replaced)"},
		{"a hook as a symbolic link", `ln -s /bin/true .git/hooks/pre-commit`, ".git/hooks/pre-commit (added)"},
		{"core.hooksPath", `git config core.hooksPath x`, ".git/config (core.hooksPath changed)"},
		{"core.fsmonitor", `git config core.fsmonitor ./evil.sh`, ".git/config (core.fsmonitor changed)"},
		{"an alias", `git config alias.st '!sh -c evil'`, "alias.st changed"},
		{"a filter", `git config filter.x.clean 'sh evil'`, "filter.x.clean changed"},
		{"an include", `echo '[core] pager = evil' > inc && git config include.path ../inc`, "include.path changed"},
		{"safe and unsafe at once", `git config user.name someone && git config core.pager evil`, "core.pager changed"},
		{"config rewritten by hand", `printf '[core\nbroken' > .git/config`, "no longer parses"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			s.sh(s.repo, "git init -q . && git commit -q --allow-empty -m init")
			hooks := filepath.Join(s.repo, ".git", "hooks")
			cfgBefore := read(t, filepath.Join(s.repo, ".git", "config"))
			listBefore := s.sh(hooks, "ls -la --time-style=+ . | sed 1d; cat *")
			g := s.guard(s.repo)
			s.sh(s.repo, tc.script)
			changes := g.Check()
			if sum := Summary(changes); !strings.Contains(sum, tc.want) {
				t.Errorf("summary %q lacks %q", sum, tc.want)
			}
			for _, c := range changes {
				if !c.Restored {
					t.Errorf("not restored: %+v", c)
				}
			}
			if got := read(t, filepath.Join(s.repo, ".git", "config")); !bytes.Equal(got, cfgBefore) {
				t.Errorf(".git/config is not as it was:\n%s\nwant\n%s", got, cfgBefore)
			}
			if got := s.sh(hooks, "ls -la --time-style=+ . | sed 1d; cat *"); got != listBefore {
				t.Errorf(".git/hooks is not as it was:\n%s\nwant\n%s", got, listBefore)
			}
			if again := g.Check(); len(again) != 0 {
				t.Errorf("a second check found %v", again)
			}
		})
	}
}

func TestSafeConfigChangesStand(t *testing.T) {
	s := newSandbox(t)
	s.sh(s.repo, "git init -q -b main . && git commit -q --allow-empty -m init")
	g := s.guard(s.repo)
	s.sh(s.repo, `git config user.name someone && git remote add origin https://example.com/x.git &&
		git config branch.main.remote origin && git config branch.main.merge refs/heads/main && git config push.autoSetupRemote true`)
	if cs := g.Check(); len(cs) != 0 {
		t.Errorf("safe changes were undone: %v", cs)
	}
	if cfg := string(read(t, filepath.Join(s.repo, ".git", "config"))); !strings.Contains(cfg, "example.com") {
		t.Errorf("the remote is gone:\n%s", cfg)
	}
	// They are the state now: an unsafe change goes back to them.
	s.sh(s.repo, `git config core.editor evil`)
	if cs := g.Check(); len(cs) != 1 {
		t.Fatalf("changes = %v", cs)
	}
	if cfg := string(read(t, filepath.Join(s.repo, ".git", "config"))); !strings.Contains(cfg, "example.com") || strings.Contains(cfg, "evil") {
		t.Errorf("config after restore:\n%s", cfg)
	}
}

func TestAcceptTakesTheUsersChanges(t *testing.T) {
	s := newSandbox(t)
	s.sh(s.repo, "git init -q .")
	g := s.guard(s.repo)
	s.sh(s.repo, `echo mine > .git/hooks/pre-commit && git config core.hooksPath .githooks`) // the user, between commands
	g.Accept()
	if cs := g.Check(); len(cs) != 0 {
		t.Errorf("the user's own change was undone: %v", cs)
	}
	if _, err := os.Stat(filepath.Join(s.repo, ".git", "hooks", "pre-commit")); err != nil {
		t.Error(err)
	}
}

func TestCoreHooksPathFolderIsGuarded(t *testing.T) {
	for _, set := range []string{
		"git config core.hooksPath .githooks",
		"printf '[core] hooksPath = .githooks' >> .git/config", // as git reads it: a key may follow the header
	} {
		s := newSandbox(t)
		s.sh(s.repo, "git init -q . && mkdir .githooks && echo ok > .githooks/pre-commit && "+set)
		g := s.guard(s.repo)
		s.sh(s.repo, `echo evil > .githooks/pre-commit && echo evil > .githooks/pre-push && mkdir .githooks/lib && echo x > .githooks/lib/y`)
		cs := g.Check()
		sum := Summary(cs)
		for _, want := range []string{".githooks/pre-commit (changed)", ".githooks/pre-push (added)"} {
			if !strings.Contains(sum, want) {
				t.Errorf("%s: summary %q lacks %q", set, sum, want)
			}
		}
		if got := string(read(t, filepath.Join(s.repo, ".githooks", "pre-commit"))); got != "ok\n" {
			t.Errorf("%s: pre-commit = %q", set, got)
		}
	}
}

// Hook managers' files count as hooks: husky's .husky (its wrappers in
// .husky/_ run .husky/HOOK), pre-commit's and lefthook's config.
func TestHookManagersAreGuarded(t *testing.T) {
	s := newSandbox(t)
	s.sh(s.repo, `git init -q . && mkdir -p .husky/_ && echo ok > .husky/pre-commit && echo '. "$(dirname "$0")/h"' > .husky/_/pre-commit &&
		echo 'repos: []' > .pre-commit-config.yaml && git config core.hooksPath .husky/_`)
	g := s.guard(s.repo)
	s.sh(s.repo, `echo evil > .husky/pre-commit && echo evil > .husky/pre-push && echo evil >> .pre-commit-config.yaml &&
		echo 'pre-commit: {jobs: [{run: evil}]}' > lefthook.yml && mkdir -p .config && echo x > .config/lefthook-local.toml && echo 'PreCommit: {}' > .overcommit.yml`)
	sum := Summary(g.Check())
	for _, want := range []string{".husky/pre-commit (changed)", ".husky/pre-push (added)", ".pre-commit-config.yaml (changed)",
		"lefthook.yml (added)", ".config/lefthook-local.toml (added)", ".overcommit.yml (added)"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q lacks %q", sum, want)
		}
	}
	if got := string(read(t, filepath.Join(s.repo, ".husky", "pre-commit"))); got != "ok\n" {
		t.Errorf(".husky/pre-commit = %q", got)
	}
	if _, err := os.Stat(filepath.Join(s.repo, "lefthook.yml")); err == nil {
		t.Error("lefthook.yml is still there")
	}
}

func TestWorktreeAndSubmodule(t *testing.T) {
	s := newSandbox(t)
	s.sh(s.repo, "git init -q . && git commit -q --allow-empty -m init")
	// A linked worktree: its .git is a file naming a git dir in the main
	// repository, whose hooks and config it shares.
	wt := filepath.Join(filepath.Dir(s.repo), "wt")
	s.sh(s.repo, "git worktree add -q "+wt)
	g := s.guard(wt)
	s.sh(wt, `cp /dev/null "$(git rev-parse --git-common-dir)/hooks/pre-commit" && git config core.hooksPath /tmp/x && echo 'gitdir: /tmp/evil' > .git.new`)
	sum := Summary(g.Check())
	for _, want := range []string{"repo/.git/hooks/pre-commit (added)", "repo/.git/config (core.hooksPath changed)"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q lacks %q", sum, want)
		}
	}
	s.sh(wt, `echo 'gitdir: /tmp/evil' > .git`)
	if sum := Summary(g.Check()); !strings.Contains(sum, ".git (changed)") {
		t.Errorf("the worktree's .git file: %q", sum)
	}

	// A .git that is a link to the git dir is guarded through it.
	linked := filepath.Join(filepath.Dir(s.repo), "linked")
	s.sh(filepath.Dir(s.repo), "mkdir linked && ln -s "+filepath.Join(s.repo, ".git")+" linked/.git")
	g = s.guard(linked)
	s.sh(linked, `cp /dev/null .git/hooks/pre-push`)
	if sum := Summary(g.Check()); !strings.Contains(sum, ".git/hooks/pre-push (added)") {
		t.Errorf("a linked .git: %q", sum)
	}

	// A submodule's git dir lives in .git/modules/NAME.
	sub := filepath.Join(filepath.Dir(s.repo), "sub")
	s.sh(filepath.Dir(s.repo), "mkdir sub && cd sub && git init -q . && git commit -q --allow-empty -m s")
	s.sh(s.repo, "git -c protocol.file.allow=always submodule -q add "+sub+" mod")
	g = s.guard(s.repo)
	s.sh(s.repo, `echo evil > .git/modules/mod/hooks/post-checkout && git -C mod config core.pager evil`)
	sum = Summary(g.Check())
	for _, want := range []string{".git/modules/mod/hooks/post-checkout (added)", ".git/modules/mod/config (core.pager changed)"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q lacks %q", sum, want)
		}
	}
}

func TestGlobalConfig(t *testing.T) {
	s := newSandbox(t)
	s.sh(s.repo, "git init -q . && git config --global user.name me")
	before := read(t, filepath.Join(s.home, ".gitconfig"))
	g := s.guard(s.repo)
	s.sh(s.repo, `git config --global core.hooksPath /tmp/evil && mkdir -p ~/.config/git && echo '[alias] x = !evil' > ~/.config/git/config`)
	sum := Summary(g.Check())
	// `[alias] x = ...` on one line is read as git reads it (go-git's
	// decoder refused it, and only said "added").
	for _, want := range []string{"~/.gitconfig (core.hooksPath changed)", "~/.config/git/config (added, setting alias.x)"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q lacks %q", sum, want)
		}
	}
	if got := read(t, filepath.Join(s.home, ".gitconfig")); !bytes.Equal(got, before) {
		t.Errorf("~/.gitconfig = %q", got)
	}
	if _, err := os.Stat(filepath.Join(s.home, ".config", "git", "config")); err == nil {
		t.Error("the new global config file is still there")
	}
}

// The config files git reads as the environment names them
// (gitconfig.Files): GIT_CONFIG_GLOBAL's is guarded, GIT_CONFIG_SYSTEM's
// core.hooksPath folder too.
func TestConfigFilesFromTheEnvironment(t *testing.T) {
	s := newSandbox(t)
	global, system := filepath.Join(s.home, "global.cfg"), filepath.Join(s.home, "system.cfg")
	s.sh(s.repo, "git init -q . && mkdir hooks2 && echo ok > hooks2/pre-commit && printf '[core]\\n\\thooksPath = hooks2\\n' > "+system)
	env := map[string]string{"GIT_CONFIG_GLOBAL": global, "GIT_CONFIG_SYSTEM": system}
	g := New(Options{Workspace: s.repo, Home: s.home, Getenv: func(k string) string { return env[k] }})
	s.sh(s.repo, "echo evil > hooks2/pre-commit && printf '[alias]\\n\\tx = !evil\\n' > "+global)
	sum := Summary(g.Check())
	for _, want := range []string{"hooks2/pre-commit (changed)", "~/global.cfg (added, setting alias.x)"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q lacks %q", sum, want)
		}
	}
	if got := string(read(t, filepath.Join(s.repo, "hooks2", "pre-commit"))); got != "ok\n" {
		t.Errorf("pre-commit = %q", got)
	}
}

// GIT_DIR in the user's environment names the repository git works in
// (gitconfig.Discover): its hooks and config are guarded, not those of a
// .git it would find in the workspace.
func TestGitDirFromTheEnvironment(t *testing.T) {
	s := newSandbox(t)
	gd := filepath.Join(filepath.Dir(s.repo), "elsewhere.git")
	s.sh(s.repo, "git init -q --bare "+gd)
	env := map[string]string{"GIT_DIR": gd}
	g := New(Options{Workspace: s.repo, Home: s.home, Getenv: func(k string) string { return env[k] }})
	s.sh(s.repo, "echo evil > "+gd+"/hooks/pre-commit && git --git-dir="+gd+" config core.fsmonitor evil")
	sum := Summary(g.Check())
	for _, want := range []string{"hooks/pre-commit (added)", "core.fsmonitor"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q lacks %q", sum, want)
		}
	}
	if _, err := os.Stat(filepath.Join(gd, "hooks", "pre-commit")); err == nil {
		t.Error("the hook is still there")
	}
}

func TestNewRepository(t *testing.T) {
	s := newSandbox(t)
	g := s.guard(s.repo) // no repository yet
	s.sh(s.repo, `git init -q . && echo evil > .git/hooks/pre-commit && git config core.fsmonitor evil && git config user.name ok`)
	sum := Summary(g.Check())
	for _, want := range []string{".git/hooks/pre-commit (added)", "core.fsmonitor (removed)"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q lacks %q", sum, want)
		}
	}
	if _, err := os.Stat(filepath.Join(s.repo, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("the hook is still there")
	}
	if _, err := os.Stat(filepath.Join(s.repo, ".git", "hooks", "pre-commit.sample")); err != nil {
		t.Errorf("a sample hook was removed: %v", err)
	}
	cfg := string(read(t, filepath.Join(s.repo, ".git", "config")))
	if strings.Contains(cfg, "fsmonitor") || !strings.Contains(cfg, "name = ok") {
		t.Errorf("config = %s", cfg)
	}
	s.sh(s.repo, "git status >/dev/null") // the repository still works
	if cs := g.Check(); len(cs) != 0 {
		t.Errorf("second check: %v", cs)
	}
}

func TestHooksPathAboveTheWorkspaceIsNotGuarded(t *testing.T) {
	s := newSandbox(t)
	s.sh(s.repo, "git init -q . && git config core.hooksPath .")
	g := s.guard(s.repo)
	s.sh(s.repo, "echo work > main.go")
	if cs := g.Check(); len(cs) != 0 {
		t.Errorf("ordinary work was undone: %v", cs)
	}
}

func BenchmarkCheckUnchanged(b *testing.B) {
	dir := b.TempDir()
	cmd := exec.Command("git", "init", "-q", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Skipf("git init: %v %s", err, out)
	}
	g := New(Options{Workspace: dir, Home: b.TempDir()})
	for b.Loop() {
		if cs := g.Check(); len(cs) != 0 {
			b.Fatal(cs)
		}
	}
}

// TestRestoreNeverWritesThroughALink: a command that replaces .git by a
// link to another folder must not get godwit to write the old hooks and
// config there.
func TestRestoreNeverWritesThroughALink(t *testing.T) {
	s := newSandbox(t)
	s.sh(s.repo, "git init -q .")
	g := s.guard(s.repo)
	elsewhere := filepath.Join(filepath.Dir(s.repo), "elsewhere")
	s.sh(s.repo, "mkdir "+elsewhere+" && mv .git ../moved && ln -s "+elsewhere+" .git")
	cs := g.Check()
	if len(cs) == 0 {
		t.Fatal("nothing reported")
	}
	for _, c := range cs {
		if c.Restored {
			t.Errorf("restored through the link: %+v", c)
		}
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("godwit wrote into the link's target: %v", ents)
	}
	// It is not taken as the user's at the next command, and is reported
	// again until someone puts .git back.
	g.Accept()
	if again := g.Check(); len(again) == 0 {
		t.Error("the unrestored change became the user's state")
	}
	s.sh(s.repo, "rm .git && mv ../moved .git")
	g.Accept()
	if again := g.Check(); len(again) != 0 {
		t.Errorf("after .git came back: %v", again)
	}
}

// After a restore the state's stats are fresh, so the next check takes
// the fast path (no file read, nothing reported).
func TestFastPathAfterRestore(t *testing.T) {
	s := newSandbox(t)
	s.sh(s.repo, "git init -q .")
	g := s.guard(s.repo)
	s.sh(s.repo, "echo x > .git/hooks/pre-commit")
	if len(g.Check()) != 1 {
		t.Fatal("not restored")
	}
	g.mu.Lock()
	cur := g.scan(g.base)
	fast := sameStamps(g.base, cur)
	g.mu.Unlock()
	if !fast {
		t.Error("the check after a restore misses the fast path")
	}
}

package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGitConfigInEveryFile: an alias or a core.hooksPath in any config
// file git reads (gitconfig.Files: the XDG file, GIT_CONFIG_GLOBAL,
// GIT_CONFIG_SYSTEM, a worktree's config.worktree, GIT_CONFIG_COUNT)
// counts: the alias is judged by what it runs, the hooks folder asks.
func TestGitConfigInEveryFile(t *testing.T) {
	const alias = "[alias]\n\ttidy = !rm victim.txt\n[core]\n\thooksPath = githooks\n"
	for _, tt := range []struct {
		name  string
		files map[string]string // relative to the test's base folder
		env   map[string]string // BASE is the base folder
	}{
		{"xdg default", map[string]string{"home/.config/git/config": alias}, nil},
		{"home", map[string]string{"home/.gitconfig": alias}, nil},
		{"XDG_CONFIG_HOME", map[string]string{"xdg/git/config": alias}, map[string]string{"XDG_CONFIG_HOME": "BASE/xdg"}},
		{"GIT_CONFIG_GLOBAL", map[string]string{"g.cfg": alias}, map[string]string{"GIT_CONFIG_GLOBAL": "BASE/g.cfg"}},
		{"GIT_CONFIG_SYSTEM", map[string]string{"s.cfg": alias}, map[string]string{"GIT_CONFIG_SYSTEM": "BASE/s.cfg"}},
		{"system", map[string]string{"system.gitconfig": alias}, nil},
		{"config.worktree", map[string]string{
			"ws/.git/config":          "[extensions]\n\tworktreeConfig = true\n",
			"ws/.git/config.worktree": alias}, nil},
		{"GIT_CONFIG_COUNT", nil, map[string]string{"GIT_CONFIG_COUNT": "2",
			"GIT_CONFIG_KEY_0": "alias.tidy", "GIT_CONFIG_VALUE_0": "!rm victim.txt",
			"GIT_CONFIG_KEY_1": "core.hooksPath", "GIT_CONFIG_VALUE_1": "githooks"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			base := filepath.Dir(e.root)
			writeFiles(t, base, tt.files)
			for k, v := range tt.env {
				if len(v) >= 4 && v[:4] == "BASE" {
					v = base + v[4:]
				}
				t.Setenv(k, v)
			}
			runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{
				{"git tidy", "DDD"},
				{"touch githooks/pre-commit", "DQQ"},
				{"git status --short", "AAA"},
			})
		})
	}
}

// TestGitConfigMovedInTheLine: a line that moves git's config files or
// adds settings (HOME, XDG_CONFIG_HOME, GIT_CONFIG_*, GIT_DIR, by
// prefix, env, export, an earlier assignment, a command string or a
// script), or names another repository (--git-dir), is not judged by
// the files the policy read: git's aliases then are not known.
func TestGitConfigMovedInTheLine(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.root, map[string]string{"x/git/config": "[alias]\n\ttidy = !rm victim.txt\n", "g.cfg": "[alias]\n\ttidy = !rm victim.txt\n",
		"tidy.sh": "export XDG_CONFIG_HOME=x\ngit tidy\n"})
	mustDo(t, os.MkdirAll(filepath.Join(e.root, ".git"), 0o755))
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{
		{"XDG_CONFIG_HOME=x git tidy", "DQQ"},
		{"env XDG_CONFIG_HOME=x git tidy", "DQQ"},
		{"export XDG_CONFIG_HOME=x; git tidy", "DQQ"},
		{"XDG_CONFIG_HOME=x; git tidy", "DQQ"},
		{"HOME=. git tidy", "DQQ"},
		{"env HOME=. git tidy", "DQQ"},
		{"GIT_CONFIG_GLOBAL=g.cfg git tidy", "DQQ"},
		{"env GIT_CONFIG_GLOBAL=g.cfg git tidy", "DQQ"},
		{"sh -c 'export GIT_CONFIG_GLOBAL=g.cfg; git tidy'", "DQQ"},
		{"sh -c 'HOME=.; git tidy'", "DQQ"},
		{"sh tidy.sh", "DQQ"},
		{"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.tidy GIT_CONFIG_VALUE_0='!rm victim.txt' git tidy", "DQQ"},
		{"env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.tidy GIT_CONFIG_VALUE_0='!rm victim.txt' git tidy", "DQQ"},
		{"GIT_DIR=x git tidy", "DQQ"},
		{"git --git-dir=x tidy", "DQQ"},
		{"git --git-dir x tidy", "DQQ"},
		{"git tidy", "DQa"},
		{"env LC_ALL=C git status --short", "DQa"},
	})
}

// TestGitConfigOfAnotherRepository: a git command that runs in another
// repository reads that one's config: a bare one git finds as the
// folder itself, a nested one reached by env -C, find -execdir or
// submodule foreach, or one in a folder known only at run time (which
// asks); and git runs git-<name> from --exec-path or PATH for a command
// it does not have (which asks).
func TestGitConfigOfAnotherRepository(t *testing.T) {
	e := newEnv(t)
	const alias = "[alias]\n\ttidy = !rm victim.txt\n"
	writeFiles(t, e.root, map[string]string{"b/HEAD": "ref: refs/heads/main\n", "b/config": alias,
		"sub/.git/config": alias, "sub/.git/HEAD": "ref: refs/heads/main\n", "sub/mark": "", "scripts/git-tidy": "rm victim.txt\n"})
	for _, d := range []string{"b/objects", "b/refs", "sub/.git/objects", "sub/.git/refs"} {
		mustDo(t, os.MkdirAll(filepath.Join(e.root, d), 0o755))
	}
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{
		{"git -C b tidy", "DDD"},
		{"cd b && git tidy", "DDD"},
		{"git -C sub tidy", "DDD"},
		{"env -C sub git tidy", "DDD"},
		{"env --chdir=sub git tidy", "DDD"},
		{"find sub -name mark -execdir git tidy \\;", "DQQ"},
		{"git submodule foreach git tidy", "DQQ"},
		{"cd \"$(printf sub)\" && git tidy", "DQQ"},
		{"git -C \"$(printf sub)\" tidy", "DQQ"},
		{"git --exec-path=scripts tidy", "DQQ"},
		{"PATH=$PWD/scripts:$PATH git tidy", "DQQ"},
		{"git tidy", "DQa"},
		{"git -C src status --short", "AAA"},
	})
	// A config file git reads in the workspace (one .git/config
	// includes), written earlier in the same line.
	mustDo(t, os.WriteFile(filepath.Join(e.root, ".git", "config"), []byte("[include]\n\tpath = ../project.cfg\n"), 0o644))
	writeFiles(t, e.root, map[string]string{"project.cfg": "[alias]\n\tst = status\n", "new.cfg": alias})
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{
		{"printf '\\ttidy = !rm victim.txt\\n' >> project.cfg && git tidy", "DQQ"},
		{"cp new.cfg project.cfg && git tidy", "DQQ"},
		{"go build ./... && git tidy", "DQQ"},
		{"git tidy", "DQa"},
		{"printf x > notes.txt && git tidy", "DQa"},
		{"cp -r b c && git -C c tidy", "DQQ"},
		{"go build ./... && git -C src tidy", "DQQ"},
		{"printf x > notes.txt && git -C src tidy", "DQa"},
	})
}

// TestGitInAnotherRepository: a git command that works in a repository
// other than the workspace's (a bare or nested one, by -C or cd), or
// reaches one on this machine (a path, file://, ext::, a remote or
// url.*.insteadOf naming a path, one the line makes first), runs hooks
// and programs from that one's config godwit does not follow: it asks
// under command rules. Network remotes and the workspace's own
// repository ask nothing new.
func TestGitInAnotherRepository(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.root, map[string]string{"b/HEAD": "ref: refs/heads/main\n", "b/hooks/pre-receive": "rm victim.txt\n",
		"sub/.git/HEAD": "ref: refs/heads/main\n", "mod/.git": "gitdir: ../.git/modules/mod\n", ".git/modules/mod/HEAD": "ref: refs/heads/main\n",
		".git/config": "[remote \"origin\"]\n\turl = https://example.com/x\n[url \"" + e.root + "/b\"]\n\tinsteadOf = https://mirror/b\n"})
	for _, d := range []string{"b/objects", "b/refs", "sub/.git/objects", "sub/.git/refs", ".git/objects", ".git/refs", ".git/modules/mod/objects", ".git/modules/mod/refs"} {
		mustDo(t, os.MkdirAll(filepath.Join(e.root, d), 0o755))
	}
	mustDo(t, os.WriteFile(filepath.Join(e.root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{
		{"git push -q ./b HEAD:refs/heads/x", "DQQ"},
		{"git push b main", "DQQ"},
		{"cd src && git push b main", "DQQ"}, // git moves to the top first
		{"git push --repo=b", "DQQ"},
		{"git -C b update-ref -d refs/heads/none", "DQQ"},
		{"cd b && git update-ref -d refs/heads/none", "DQQ"},
		{"git -C sub commit -m x", "DQQ"},
		{"git -C sub status --short", "QQQ"},
		{"git clone ./b c", "DQQ"},
		{"git fetch file:///srv/b.git", "DQQ"},
		{"git ls-remote 'ext::sh -c rm% victim.txt'", "DQQ"},
		{"git push https://mirror/b main", "DQQ"},
		{"git -c remote.origin.url=./b push origin main", "DQQ"},
		{"git archive --remote=./b HEAD", "DQQ"},
		{"git receive-pack b", "DQQ"},
		{"cp -r b c && git push c main", "DQQ"},
		{"git push \"$R\" main", "DQQ"},
		// What runs all day asks nothing new.
		{"git status --short", "AAA"},
		{"git -C src status --short", "AAA"},
		{"git -C mod status --short", "AAA"}, // a submodule: the workspace's own git dir holds it
		{"git commit -m 'fix Foo::bar, see https://example.com'", "DQa"},
		{"git push origin main", "DQa"},
		{"git push", "DQa"},
		{"git fetch origin", "DQa"},
		{"git push git@github.com:o/r.git main", "DQa"},
		{"git push ssh://h/x main", "DQa"},
		{"git add . && git commit -m x && git push origin HEAD:main", "DQa"},
		{"git pull --rebase", "DQa"},
	})
	// A remote whose URL is a path: naming it, or leaving git to pick it.
	writeFiles(t, e.root, map[string]string{".git/config": "[remote \"origin\"]\n\turl = https://example.com/x\n[remote \"loc\"]\n\turl = ../elsewhere\n"})
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{
		{"git push loc main", "DQQ"},
		{"git fetch", "DQQ"},
		{"git remote update", "DQQ"},
		{"git push origin main", "DQa"},
		{"git status --short", "AAA"},
	})
}

// TestGitEnvironmentOfGodwit: what godwit's own environment tells git.
// GIT_DIR names the repository git works in: its aliases count and its
// hooks are protected (a relative one is not certain: git asks); a
// variable that moves what git reads (GIT_INDEX_FILE) leaves the files
// it prints unlisted under path rules; a workspace folder on PATH may
// hold a git-<name> program for any name git does not have itself, or a
// program for a command's name.
func TestGitEnvironmentOfGodwit(t *testing.T) {
	e := newEnv(t)
	gd := filepath.Join(e.outside, "r.git")
	writeFiles(t, gd, map[string]string{"HEAD": "ref: refs/heads/main\n", "config": "[alias]\n\ttidy = !rm victim.txt\n"})
	for _, d := range []string{"objects", "refs", "hooks"} {
		mustDo(t, os.MkdirAll(filepath.Join(gd, d), 0o755))
	}
	const denyRm = "deny:\n  - command: \"rm *\"\n"
	t.Run("GIT_DIR", func(t *testing.T) {
		t.Setenv("GIT_DIR", gd)
		runVerdicts(t, e, denyRm, []verdictCase{
			{"git tidy", "DDD"},
			{"cp README.md " + gd + "/hooks/pre-commit", "DQQ"},
			{"git status --short", "AAA"},
		})
	})
	t.Run("GIT_DIR relative", func(t *testing.T) {
		t.Setenv("GIT_DIR", "../outside/r.git")
		runVerdicts(t, e, denyRm, []verdictCase{{"git status --short", "QQQ"}})
	})
	t.Run("GIT_INDEX_FILE", func(t *testing.T) {
		t.Setenv("GIT_INDEX_FILE", filepath.Join(e.outside, "index"))
		runVerdicts(t, e, "deny:\n  - path: \"src/**\"\n", []verdictCase{{"git diff", "QQQ"}, {"git log --oneline", "AAA"}})
		runVerdicts(t, e, denyRm, []verdictCase{{"git diff", "AAA"}})
	})
	for _, path := range []string{filepath.Join(e.root, "bin"), "bin", ""} {
		t.Run("PATH "+path, func(t *testing.T) {
			t.Setenv("PATH", path+string(filepath.ListSeparator)+os.Getenv("PATH"))
			runVerdicts(t, e, denyRm, []verdictCase{
				{"git tidy", "DQQ"},
				{"git status --short", "AAA"},
				{"git commit -m x", "DQa"},
			})
			runVerdicts(t, e, "", []verdictCase{{"git tidy", "DQa"}})
			// A program of the workspace on PATH stands for the name
			// (bin/git), as ./bin/git would; one the line may put there
			// first is not known.
			prog := filepath.Join(e.root, "bin", "git")
			if path == "" {
				prog = filepath.Join(e.root, "git")
			}
			mustDo(t, os.MkdirAll(filepath.Dir(prog), 0o755))
			mustDo(t, os.WriteFile(prog, []byte("#!/bin/sh\nrm victim.txt\n"), 0o755))
			runVerdicts(t, e, denyRm, []verdictCase{
				{"git commit -m x", "DDD"},
				{"ls", "AAA"},
				{"touch x && ls", "DQQ"}, // the cost: touch may have made bin/ls
			})
			mustDo(t, os.Remove(prog))
			runVerdicts(t, e, denyRm, []verdictCase{{"touch x && git commit -m x", "DQQ"}, {"touch x && rm y", "DDD"}})
		})
	}
}

// TestPolicyGitNotFromWorkspace: the git the policy runs itself (to list
// the index, to walk renames) runs outside any sandbox, so it is never
// one a workspace folder on PATH holds.
func TestPolicyGitNotFromWorkspace(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	e := newEnv(t)
	gitRepo(t, e.root, "README.md", "src/a.go")
	mark := filepath.Join(e.outside, "ran")
	writeFiles(t, e.root, map[string]string{"bin/git": "#!/bin/sh\ntouch " + mark + "\n"})
	mustDo(t, os.Chmod(filepath.Join(e.root, "bin", "git"), 0o755))
	t.Setenv("PATH", filepath.Join(e.root, "bin")+string(filepath.ListSeparator)+os.Getenv("PATH"))
	runVerdicts(t, e, "deny:\n  - path: \"secrets/**\"\n", []verdictCase{
		{"git diff", "AAA"},
		{"git log -p -- README.md", "AAA"},
	})
	if _, err := os.Stat(mark); err == nil {
		t.Error("the policy ran the workspace's bin/git")
	}
}

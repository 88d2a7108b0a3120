package gitconfig

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFiles: the config files git reads, for each variable that moves
// them, the worktree's config.worktree, and a bare repository's; each list is checked
// against git's own (`git config --show-origin --list`).
func TestFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	sys := map[string]string{"HOME": "home", "GIT_CONFIG_SYSTEM": "sys"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range sys {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "-" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	home := []string{"home/.config/git/config", "home/.gitconfig"}
	for _, tt := range []struct {
		name     string
		env      map[string]string // a value not starting with / is below the test's folder, but for ""
		worktree string            // extensions.worktreeConfig in the repository's config, "linked" in a linked worktree
		want     []string          // below the test's folder, but /etc/gitconfig
		err      bool
	}{
		{name: "default", env: with("GIT_CONFIG_SYSTEM", "-"), want: append(append([]string{SystemFile}, home...), "repo/.git/config")},
		{name: "GIT_CONFIG_SYSTEM", env: sys, want: append(append([]string{"sys"}, home...), "repo/.git/config")},
		{name: "GIT_CONFIG_SYSTEM empty", env: with("GIT_CONFIG_SYSTEM", ""), want: append(home, "repo/.git/config")},
		{name: "GIT_CONFIG_NOSYSTEM", env: with("GIT_CONFIG_NOSYSTEM", "1"), want: append(home, "repo/.git/config")},
		{name: "GIT_CONFIG_NOSYSTEM no", env: with("GIT_CONFIG_NOSYSTEM", "No"), want: append(append([]string{"sys"}, home...), "repo/.git/config")},
		{name: "GIT_CONFIG_NOSYSTEM bad", env: with("GIT_CONFIG_NOSYSTEM", "maybe"), err: true},
		{name: "XDG_CONFIG_HOME", env: with("XDG_CONFIG_HOME", "xdg"), want: []string{"sys", "xdg/git/config", "home/.gitconfig", "repo/.git/config"}},
		{name: "XDG_CONFIG_HOME empty", env: with("XDG_CONFIG_HOME", ""), want: append(append([]string{"sys"}, home...), "repo/.git/config")},
		{name: "no HOME", env: with("HOME", "-"), want: []string{"sys", "repo/.git/config"}},
		{name: "XDG_CONFIG_HOME, no HOME", env: with("HOME", "-", "XDG_CONFIG_HOME", "xdg"), want: []string{"sys", "xdg/git/config", "repo/.git/config"}},
		{name: "GIT_CONFIG_GLOBAL", env: with("GIT_CONFIG_GLOBAL", "g", "XDG_CONFIG_HOME", "xdg"), want: []string{"sys", "g", "repo/.git/config"}},
		{name: "GIT_CONFIG_GLOBAL empty", env: with("GIT_CONFIG_GLOBAL", ""), want: []string{"sys", "repo/.git/config"}},
		{name: "GIT_CONFIG_GLOBAL relative", env: with("GIT_CONFIG_GLOBAL", "./g"), err: true},
		{name: "worktreeConfig", env: sys, worktree: "true", want: append(append([]string{"sys"}, home...), "repo/.git/config", "repo/.git/config.worktree")},
		{name: "worktreeConfig off", env: sys, worktree: "false", want: append(append([]string{"sys"}, home...), "repo/.git/config")},
		{name: "worktreeConfig bad", env: sys, worktree: "maybe", err: true},
		{name: "bare repository in a work tree", env: sys, worktree: "bare", want: append(append([]string{"sys"}, home...), "repo/b/config")},
		{name: "GIT_DIR", env: with("GIT_DIR", "other"), worktree: "other", want: append(append([]string{"sys"}, home...), "other/config")},
		{name: "GIT_COMMON_DIR", env: with("GIT_DIR", "repo/.git", "GIT_COMMON_DIR", "other"), worktree: "other", want: append(append([]string{"sys"}, home...), "other/config")},
		{name: "GIT_DIR relative", env: with("GIT_DIR", "./other"), err: true},
		{name: "linked worktree", env: sys, worktree: "linked", want: append(append([]string{"sys"}, home...), "repo/.git/config", "repo/.git/worktrees/linked/config.worktree")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			abs := func(p string) string {
				if p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "./") {
					return p
				}
				return filepath.Join(base, p)
			}
			env := map[string]string{}
			for k, v := range tt.env {
				if k != "GIT_CONFIG_NOSYSTEM" {
					v = abs(v)
				}
				env[k] = v
			}
			// git runs with env once the repository is set up.
			setup := map[string]string{"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": ""}
			git := func(dir string, args ...string) string {
				cmd := exec.Command("git", args...)
				cmd.Dir = dir
				cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
				for k, v := range setup {
					cmd.Env = append(cmd.Env, k+"="+v)
				}
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
				return string(out)
			}
			dir := filepath.Join(base, "repo")
			mustWrite(t, filepath.Join(dir, "f"), "")
			git(dir, "init", "-q")
			for _, p := range []string{"sys", "g", "xdg/git/config", "home/.config/git/config", "home/.gitconfig"} {
				mustWrite(t, filepath.Join(base, p), "[t]\n\tv = "+p+"\n")
			}
			switch tt.worktree {
			case "":
			case "other": // a repository elsewhere, which GIT_DIR or GIT_COMMON_DIR names
				git(base, "init", "-q", "--bare", "other")
			case "bare": // git takes the folder itself before going up to repo/.git
				git(dir, "init", "-q", "--bare", "b")
				dir = filepath.Join(dir, "b")
			case "linked":
				git(dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")
				git(dir, "worktree", "add", "-q", "../linked")
				git(dir, "config", "extensions.worktreeConfig", "true")
				dir = filepath.Join(base, "linked")
				mustWrite(t, filepath.Join(base, "repo/.git/worktrees/linked/config.worktree"), "[t]\n\tv = wt\n")
			default:
				git(dir, "config", "extensions.worktreeConfig", tt.worktree)
				mustWrite(t, filepath.Join(dir, ".git/config.worktree"), "[t]\n\tv = wt\n")
			}
			setup = env
			files, err := Files(dir, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
			if tt.err {
				if err == nil {
					t.Errorf("Files = %v, want an error", files)
				}
				return
			}
			var got, fromGit []string
			for _, f := range files {
				if _, err := os.Stat(f.Path); err == nil {
					got = append(got, f.Path)
				}
			}
			var want []string
			for _, w := range tt.want {
				if _, err := os.Stat(abs(w)); err == nil {
					want = append(want, abs(w))
				}
			}
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("Files = %q, %v; want %q", got, err, want)
			}
			for _, l := range strings.Split(git(dir, "config", "--show-origin", "--list"), "\n") {
				p, _, _ := strings.Cut(strings.TrimPrefix(l, "file:"), "\t")
				if p == "" || strings.HasPrefix(l, "command line:") {
					continue
				}
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, p)
				}
				if len(fromGit) == 0 || fromGit[len(fromGit)-1] != p {
					fromGit = append(fromGit, p)
				}
			}
			if !slices.Equal(got, fromGit) {
				t.Errorf("Files = %q; git reads %q", got, fromGit)
			}
		})
	}
}

// TestEnvSettings: GIT_CONFIG_COUNT's pairs, and what git refuses.
func TestEnvSettings(t *testing.T) {
	env := map[string]string{"GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "alias.p", "GIT_CONFIG_VALUE_0": "!sh x",
		"GIT_CONFIG_KEY_1": "url.https://x.insteadOf", "GIT_CONFIG_VALUE_1": "y"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	s, err := EnvSettings(lookup)
	if err != nil || list(s) != "alias.p=!sh x\nurl.https://x.insteadof=y\n" {
		t.Errorf("EnvSettings = %q, %v", list(s), err)
	}
	for k, v := range map[string]string{"GIT_CONFIG_COUNT": "3", "GIT_CONFIG_KEY_1": "include.path", "GIT_CONFIG_PARAMETERS": "'a.b'='c'"} {
		old := env[k]
		env[k] = v
		if s, err := EnvSettings(lookup); err == nil {
			t.Errorf("%s=%s: EnvSettings = %q, want an error", k, v, list(s))
		}
		env[k] = old
	}
}

func mustWrite(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

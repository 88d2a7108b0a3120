//go:build linux

package sandbox_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/godwit/godwit/internal/sandbox"
	"github.com/godwit/godwit/internal/tool/shell"
)

// The secrets the view must keep from commands; the tests' own
// environment holds the last, as godwit's holds a provider key.
const (
	tokenMark  = "ghp_VIEWTOKENMARK"
	headerMark = "VIEWHEADERMARK"
	fileMark   = "VIEWFILEMARK"
	homeMark   = "VIEWHOMEMARK"
	envMark    = "VIEWENVMARK"
)

// world is a workspace with secrets, a home with credentials and a
// GODWIT_HOME, as a command would find them.
type world struct {
	dirs
	home, ghome string
}

func newWorld(t testing.TB) world {
	t.Helper()
	w := world{dirs: newDirs(t)}
	base := filepath.Dir(w.ws)
	w.home, w.ghome = filepath.Join(base, "home"), filepath.Join(base, "ghome")
	files := map[string]string{
		filepath.Join(w.ws, ".env"):                                        "PASSWORD=" + fileMark + "\n",
		filepath.Join(w.ws, "deploy", "server.key"):                        fileMark + "\n",
		filepath.Join(w.ws, "README.md"):                                   "hello\n",
		filepath.Join(w.home, ".ssh", "id_ed25519"):                        homeMark + "\n",
		filepath.Join(w.home, ".aws", "credentials"):                       homeMark + "\n",
		filepath.Join(w.home, ".config", "gh", "hosts.yml"):                homeMark + "\n",
		filepath.Join(w.home, ".docker", "config.json"):                    homeMark + "\n",
		filepath.Join(w.home, ".netrc"):                                    "machine x password " + homeMark + "\n",
		filepath.Join(w.home, ".git-credentials"):                          "https://u:" + homeMark + "@x\n",
		filepath.Join(w.home, ".config", "git", "credentials"):             "https://u:" + homeMark + "@x\n",
		filepath.Join(w.home, ".gitconfig"):                                "[url \"https://u:" + homeMark + "@github.com/\"]\n\tinsteadOf = https://github.com/\n",
		filepath.Join(w.ghome, "config.yaml"):                              "model: x/" + homeMark + "\n",
		filepath.Join(w.ghome, ".env"):                                     "OPENAI_API_KEY=" + homeMark + "\n",
		filepath.Join(w.ghome, "cache", "kept.txt"):                        "cache\n",
		filepath.Join(w.ghome, "skills", "s", "SKILL.md"):                  "skill\n",
		filepath.Join(w.ws, ".git", "hooks", "pre-commit.sample"):          "#!/bin/sh\n",
		filepath.Join(w.ws, ".git", "modules", "sub", "config"):            "[remote \"origin\"]\n\turl = https://x-access-token:" + tokenMark + "@github.com/o/sub.git\n",
		filepath.Join(w.ws, ".git", "modules", "sub", "hooks", "x.sample"): "#!/bin/sh\n",
	}
	for p, body := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = w.ws
		cmd.Env = append(os.Environ(), "HOME="+w.home, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("config", "remote.origin.url", "https://x-access-token:"+tokenMark+"@github.com/o/r.git")
	git("config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic "+headerMark)
	git("-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "first")
	return w
}

func (w world) view(refused *atomic.Int32, t testing.TB) *sandbox.View {
	return &sandbox.View{
		Workspace: w.ws,
		Secrets: func() []string {
			return []string{filepath.Join(w.ws, ".env"), filepath.Join(w.ws, "deploy", "server.key")}
		},
		Hidden:     append(sandbox.HomeSecrets(w.home), w.ghome),
		Keep:       []string{filepath.Join(w.ghome, "cache"), filepath.Join(w.ghome, "skills")},
		GitConfigs: sandbox.GitConfigs(w.home),
		Refused: func(err error) {
			refused.Add(1)
			t.Logf("refused: %v", err)
		},
	}
}

// TestViewHides runs commands in the view and shows each hidden thing
// hidden, and git still working. Run as root it tests the mount and PID
// namespaces alone; TestViewHidesUnprivileged runs it again as nobody,
// where a user namespace is needed.
func TestViewHides(t *testing.T) {
	needLandlock(t)
	w := newWorld(t)
	t.Setenv("HOME", w.home)
	t.Setenv("VIEWTEST_API_KEY", envMark) // godwit's own key: never a command's
	var refused atomic.Int32
	cfg := writable(w.dirs)
	cfg.View = w.view(&refused, t)
	cfg.Limits = sandbox.Limits{Processes: 500, FileSize: 1 << 20}
	var procs []string // the kernel never counts root's processes: not set
	if os.Geteuid() != 0 {
		procs = []string{"500\n"}
	}
	tests := []struct {
		name, command string
		ok            bool     // exit 0
		want          []string // in the output
	}{
		{"workspace secret empty", `cat .env deploy/server.key; wc -c < .env`, true, []string{"0"}},
		{"secret read by other programs", `head -c 100 .env; strings .env; python3 -c "print(open('.e'+'nv').read())"; base64 .env`, true, nil},
		{"secret cannot be written", `echo x >> .env`, false, nil},
		{"home credentials gone", `ls -A ~/.ssh ~/.aws ~/.config/gh ~/.docker; cat ~/.netrc ~/.git-credentials ~/.config/git/credentials`, true, nil},
		{"GODWIT_HOME gone but its cache and skills", `ls -A ` + w.ghome + `; cat ` + w.ghome + `/cache/kept.txt ` + w.ghome + `/skills/s/SKILL.md; cat ` + w.ghome + `/config.yaml`, false, []string{"cache\nskills\ncache\nskill\n"}},
		{"git config without credentials", `cat .git/config; jq -R . .git/config 2>/dev/null; awk 1 .git/modules/sub/config`, true, []string{"url = https://github.com/o/r.git", "url = https://github.com/o/sub.git"}},
		{"git still works", `git remote get-url origin && git log --oneline | wc -l && git status --short | head -1`, true, []string{"https://github.com/o/r.git\n1\n"}},
		{"global git config without credentials", `git config --global --list`, true, []string{"url.https://github.com/.insteadof"}},
		{"git config read-only", `git config user.name Evil`, false, nil},
		{"git config cannot be replaced", `echo '[core] fsmonitor = evil' > .git/config.new && mv .git/config.new .git/config`, false, nil},
		{"hooks read-only", `echo 'echo pwned' > .git/hooks/pre-commit`, false, nil},
		{"submodule hooks read-only", `echo 'echo pwned' > .git/modules/sub/hooks/post-checkout`, false, nil},
		{".git cannot be swapped", `mv .git .git-old`, false, nil},
		{"git writes work", `git -c user.name=T -c user.email=t@e commit -q --allow-empty -m two && git log --oneline | wc -l`, true, []string{"2\n"}},
		{"proc shows only the command's tree", `ls /proc | grep -c '^[0-9]'`, true, nil},
		{"no environ of godwit", `cat /proc/[0-9]*/environ 2>/dev/null | tr '\0' '\n'; grep -a -r VIEWTEST /proc/*/environ 2>/dev/null`, false, nil},
		{"cannot unmount the view", `umount -l ~/.ssh 2>&1; umount .env 2>&1; ls -A ~/.ssh`, true, nil},
		{"writes outside still denied", `touch ` + w.home + `/x`, false, nil},
		{"TMPDIR writable", `echo t > "$TMPDIR/t" && cat "$TMPDIR/t" && rm "$TMPDIR/t"`, true, []string{"t\n"}},
		{"rlimits", `ulimit -f; ulimit -u; head -c 2000000 /dev/zero > big; wc -c < big; rm big`, true, []string{"1024\n", "\n1048576\n"}},
		{"rlimit on processes", `ulimit -u`, true, procs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := run(t, w.dirs, cfg, tt.command)
			if (code == 0) != tt.ok {
				t.Errorf("%s: exit %d, want ok=%v\n%s", tt.command, code, tt.ok, out)
			}
			for _, mark := range []string{tokenMark, headerMark, fileMark, homeMark, envMark} {
				if strings.Contains(out, mark) {
					t.Errorf("%s: the command saw %s:\n%s", tt.command, mark, out)
				}
			}
			for _, want := range tt.want {
				if !strings.Contains(out, want) {
					t.Errorf("%s: output lacks %q:\n%s", tt.command, want, out)
				}
			}
		})
	}
	if _, out := run(t, w.dirs, cfg, `ls /proc | grep -c '^[0-9]'`); !strings.HasPrefix(out, "3\n") && !strings.HasPrefix(out, "4\n") {
		// the supervisor, bash, ls and grep at most
		t.Errorf("/proc shows more than the command's own processes:\n%s", out)
	}
	if n := refused.Load(); n != 0 {
		t.Fatalf("namespaces were refused here; the view was not tested")
	}
	for _, p := range []string{filepath.Join(w.ws, ".git", "hooks", "pre-commit"), filepath.Join(w.home, "x")} {
		gone(t, p)
	}
	if b, _ := os.ReadFile(filepath.Join(w.ws, ".git", "config")); !strings.Contains(string(b), tokenMark) {
		t.Errorf("the real .git/config lost its credentials:\n%s", b)
	}
}

// TestViewHidesUnprivileged runs TestViewHides as nobody and as root
// without CAP_SYS_ADMIN (setpriv), where the view needs a user
// namespace.
func TestViewHidesUnprivileged(t *testing.T) {
	needLandlock(t)
	if os.Geteuid() != 0 {
		t.Skip("already unprivileged: TestViewHides is this test")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("needs setpriv")
	}
	// nobody must be able to run a copy of this test binary.
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "sandbox.test")
	if err := copyFile(exe); err != nil {
		t.Fatal(err)
	}
	for _, who := range []struct{ name, args string }{
		{"nobody", "--reuid=65534 --regid=65534 --clear-groups"},
		// Root that may not mount (a container's): the probe falls back
		// to a user namespace.
		{"root without CAP_SYS_ADMIN", "--bounding-set=-sys_admin"},
	} {
		cmd := exec.Command(setpriv, append(strings.Fields(who.args), exe, "-test.run=^TestView(Hides|Fallback)$", "-test.v")...)
		cmd.Env = append(os.Environ(), "HOME=/nonexistent", "TMPDIR=/tmp")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestViewHides ") {
			t.Errorf("as %s, TestViewHides did not pass (%v):\n%s", who.name, err, out)
		}
	}
}

// TestViewFallback: where namespaces cannot be made (the probe's knob
// says so), commands run as before, under Landlock, and Refused hears it
// once.
func TestViewFallback(t *testing.T) {
	needLandlock(t)
	t.Setenv("GODWIT_TEST_REFUSE_NAMESPACES", "1")
	w := newWorld(t)
	var refused atomic.Int32
	cfg := writable(w.dirs)
	cfg.View = w.view(&refused, t)
	for range 2 {
		code, out := run(t, w.dirs, cfg, `cat .env; touch `+w.home+`/x`)
		if code == 0 || !strings.Contains(out, fileMark) {
			t.Errorf("fallback: exit %d, want the secret seen (no view) and the write outside denied (Landlock):\n%s", code, out)
		}
	}
	gone(t, filepath.Join(w.home, "x"))
	if n := refused.Load(); n != 1 {
		t.Errorf("Refused was told %d times, want once", n)
	}
}

func copyFile(dst string) error {
	src, err := os.Executable()
	if err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// editor runs a command as an editor's terminal does (ACP
// terminal/create): its own child, given the program, arguments, folder
// and variables, nothing else of the exec.Cmd.
type editor struct{}

func (editor) Run(ctx context.Context, c *exec.Cmd, limit int) (shell.TerminalResult, error) {
	cmd := exec.CommandContext(ctx, c.Path, c.Args[1:]...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	out, _ := cmd.CombinedOutput()
	res := shell.TerminalResult{Output: string(out)}
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		code := cmd.ProcessState.ExitCode()
		res.ExitCode = &code
	}
	return res, nil
}

// TestViewInTerminal: a command an editor's terminal runs gets the view
// too (its supervisor starts the second one in the namespaces).
func TestViewInTerminal(t *testing.T) {
	needLandlock(t)
	w := newWorld(t)
	t.Setenv("HOME", w.home)
	var refused atomic.Int32
	cfg := writable(w.dirs)
	cfg.View = w.view(&refused, t)
	sh := shell.New(shell.Options{Workdir: w.ws, Wrap: sandbox.Wrap(cfg), Terminal: editor{}})
	t.Cleanup(func() { sh.Close() })
	args, _ := json.Marshal(map[string]string{"command": `cat .env .git/config ~/.ssh/id_ed25519; ls /proc | grep -c '^[0-9]'`})
	res, err := sh.Run(context.Background(), args)
	if err != nil {
		t.Fatal(err)
	}
	for _, mark := range []string{tokenMark, headerMark, fileMark, homeMark} {
		if strings.Contains(res.Content, mark) {
			t.Errorf("the command saw %s:\n%s", mark, res.Content)
		}
	}
	if !strings.Contains(res.Content, "url = https://github.com/o/r.git") || !regexp.MustCompile(`(?m)^[1-5]$`).MatchString(res.Content) {
		t.Errorf("not the view's git config and /proc:\n%s", res.Content)
	}
}

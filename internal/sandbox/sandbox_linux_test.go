//go:build linux

package sandbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/sandbox"
	"github.com/godwit/godwit/internal/tool/shell"
)

// TestMain lets the test binary play the sandbox child: Wrap re-runs the
// current executable, which is this binary.
func TestMain(m *testing.M) {
	shell.MaybeSupervise()
	sandbox.MaybeRunChild()
	os.Exit(m.Run())
}

func needLandlock(t *testing.T) int {
	t.Helper()
	abi, err := sandbox.Status()
	if err != nil {
		t.Skipf("skipped: %v; the sandbox cannot be tested on this kernel", err)
	}
	return abi
}

type dirs struct{ ws, tmp string }

func newDirs(t testing.TB) dirs {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := dirs{ws: filepath.Join(base, "ws"), tmp: filepath.Join(base, "tmp")}
	for _, p := range []string{d.ws, d.tmp, filepath.Join(d.ws, "a"), filepath.Join(d.ws, "b")} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(d.ws, "a", "f.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

// run runs command through the real shell_exec tool with the sandbox
// wrapped in, and returns its exit code and output.
func run(t *testing.T, d dirs, cfg sandbox.Config, command string) (int, string) {
	t.Helper()
	sh := shell.New(shell.Options{Workdir: d.ws, Wrap: sandbox.Wrap(cfg)})
	t.Cleanup(func() { sh.Close() })
	args, _ := json.Marshal(map[string]string{"command": command})
	res, err := sh.Run(context.Background(), args)
	if err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	if res.ExitCode == nil {
		t.Fatalf("%s: no exit code: %s", command, res.Content)
	}
	return *res.ExitCode, res.Content
}

func writable(d dirs) sandbox.Config {
	return sandbox.Config{Writable: []string{d.ws, d.tmp}, TempDir: d.tmp, Network: true}
}

// gone checks that a file a denied command named does not exist, and
// removes it if the sandbox failed.
func gone(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		os.Remove(path)
		t.Errorf("%s was created", path)
	}
}

func TestWritesAllowed(t *testing.T) {
	needLandlock(t)
	d := newDirs(t)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	pid := os.Getpid()
	tests := []struct {
		command string
		ok      bool
		created string // a file that must not exist afterwards when !ok
	}{
		{`touch "$HOME/outside-` + fmt.Sprint(pid) + `"`, false, filepath.Join(home, fmt.Sprintf("outside-%d", pid))},
		{`touch /tmp/outside-` + fmt.Sprint(pid), false, fmt.Sprintf("/tmp/outside-%d", pid)},
		{`echo x > ` + filepath.Dir(d.ws) + `/sibling`, false, filepath.Join(filepath.Dir(d.ws), "sibling")},
		{`touch inside.txt`, true, ""},
		{`touch "$TMPDIR/x" && test "$TMPDIR" = ` + d.tmp, true, ""},
		{`mkdir -p c/d && echo hi > c/d/e && rm -r c`, true, ""},
		{`mv a/f.txt b/ && mv b/f.txt a/`, true, ""}, // renames across folders need Landlock's refer right
		{`ls / > /dev/null 2>&1 && cat /etc/passwd > /dev/null`, true, ""},
		{`echo hi >&2 2>/dev/null; echo out > /dev/stdout`, true, ""},
	}
	for _, tt := range tests {
		code, out := run(t, d, writable(d), tt.command)
		if (code == 0) != tt.ok {
			t.Errorf("%s: exit %d, want ok=%v\n%s", tt.command, code, tt.ok, out)
		}
		if !tt.ok && tt.created != "" {
			gone(t, tt.created)
		}
	}
	if _, err := os.Stat(filepath.Join(d.ws, "inside.txt")); err != nil {
		t.Errorf("inside.txt: %v", err)
	}
	if _, err := os.Stat(filepath.Join(d.tmp, "x")); err != nil {
		t.Errorf("$TMPDIR/x: %v", err)
	}
}

func TestReadOnly(t *testing.T) {
	needLandlock(t)
	d := newDirs(t)
	cfg := sandbox.Config{Writable: []string{d.ws, d.tmp}, ReadOnly: true, TempDir: d.tmp}
	tests := []struct {
		command string
		ok      bool
	}{
		{`touch inside.txt`, false},
		{`echo x > a/f.txt`, false},
		{`rm a/f.txt`, false},
		{`touch "$TMPDIR/x"`, false},
		{`cat a/f.txt && ls -R . && echo done 2>/dev/null`, true},
		{`git --version > /dev/null 2>&1 || true`, true},
	}
	for _, tt := range tests {
		code, out := run(t, d, cfg, tt.command)
		if (code == 0) != tt.ok {
			t.Errorf("%s: exit %d, want ok=%v\n%s", tt.command, code, tt.ok, out)
		}
	}
	gone(t, filepath.Join(d.ws, "inside.txt"))
	if b, err := os.ReadFile(filepath.Join(d.ws, "a", "f.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("a/f.txt changed: %q %v", b, err)
	}
}

func TestNetwork(t *testing.T) {
	if abi := needLandlock(t); abi < 4 {
		t.Skipf("skipped: Landlock ABI %d cannot restrict the network (needs 4)", abi)
	}
	d := newDirs(t)
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	ln, err := lc.Listen(context.Background(), "tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d`, port)
	on := writable(d)
	off := on
	off.Network = false
	if code, out := run(t, d, on, connect); code != 0 {
		t.Errorf("network on: exit %d\n%s", code, out)
	}
	if code, out := run(t, d, off, connect); code == 0 {
		t.Errorf("network off: the connection succeeded\n%s", out)
	}
}

func TestWrapRewrites(t *testing.T) {
	needLandlock(t)
	wrap := sandbox.Wrap(sandbox.Config{Writable: []string{"/x"}, TempDir: "/tmp/private"})
	cmd := exec.Command("/bin/sh", "-c", "true")
	if err := wrap(cmd); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	if cmd.Path != exe || strings.Join(cmd.Args[1:], " ") != "__godwit_sandbox /bin/sh /bin/sh -c true" {
		t.Errorf("path %q args %q", cmd.Path, cmd.Args)
	}
	env := strings.Join(cmd.Env, "\n")
	if !strings.Contains(env, "GODWIT_SANDBOX={") || !strings.HasSuffix(env, "TMPDIR=/tmp/private") {
		t.Errorf("env lacks the payload or TMPDIR")
	}
	if err := wrap(cmd); err == nil {
		t.Error("wrapping twice must fail")
	}
	bad := exec.Command("definitely-not-a-program-godwit")
	if err := wrap(bad); err == nil {
		t.Error("a command whose program was not found must fail")
	}
}

// TestCommandCannotSignalItsSupervisor: the supervisor (outside the
// sandbox) holds the command's tree; with Landlock's signal scoping (ABI
// 6) the command can neither kill nor stop it, nor godwit.
func TestCommandCannotSignalItsSupervisor(t *testing.T) {
	if abi := needLandlock(t); abi < 6 {
		t.Skipf("skipped: Landlock ABI %d cannot scope signals (needs 6)", abi)
	}
	d := newDirs(t)
	for _, command := range []string{
		`kill -9 $PPID`,
		`kill -STOP $PPID`,
		fmt.Sprintf(`kill -9 %d`, os.Getpid()),
	} {
		code, out := run(t, d, writable(d), command+` && echo delivered`)
		if code == 0 || strings.Contains(out, "delivered") {
			t.Errorf("%s: exit %d\n%s", command, code, out)
		}
	}
	// Its own processes it may still signal.
	if code, out := run(t, d, writable(d), `sleep 100 & kill $! && wait $!; echo status $?`); code != 0 || !strings.Contains(out, "status 143") {
		t.Errorf("killing its own child: exit %d\n%s", code, out)
	}
}

// TestNoNewLinksToOutsideFiles: a command cannot make a hard link in the
// workspace to a file outside it (Landlock's refer right is granted on
// the workspace only), so the only such links are those that existed
// before; wiring gives those a copy of their own (snapshot.Detach).
func TestNoNewLinksToOutsideFiles(t *testing.T) {
	if abi := needLandlock(t); abi < 2 {
		t.Skipf("skipped: Landlock ABI %d", abi)
	}
	d := newDirs(t)
	outside := filepath.Join(filepath.Dir(d.ws), "outside.txt")
	if err := os.WriteFile(outside, []byte("safe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := run(t, d, writable(d), `ln `+outside+` link.txt`); code == 0 {
		t.Errorf("ln succeeded\n%s", out)
	}
	gone(t, filepath.Join(d.ws, "link.txt"))
	// Links inside the workspace still work.
	if code, out := run(t, d, writable(d), `ln a/f.txt b/g.txt && mv b/g.txt a/h.txt`); code != 0 {
		t.Errorf("links inside: exit %d\n%s", code, out)
	}
}

// TestCaches: a command that may write gets godwit's private caches,
// builds through them with the real go command (reading through to the
// user's build cache), and cannot write the user's caches by any route:
// the user's own builds trust them later.
func TestCaches(t *testing.T) {
	needLandlock(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipped: no go command")
	}
	d := newDirs(t)
	base := filepath.Dir(d.ws)
	userCache, userMods := filepath.Join(base, "user", "go-build"), filepath.Join(base, "user", "mod")
	for _, p := range []string{filepath.Join(d.ws, "p"), filepath.Join(userMods, "cache", "download")} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{"go.mod": "module example.com/w\n\ngo 1.21\n", "p/p.go": "package p\n\n// F is a function with no imports: it builds without the standard library.\nfunc F() int { return 42 }\n"}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(d.ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The user built p once, outside godwit.
	seed := exec.Command(goBin, "build", "./p")
	seed.Dir = d.ws
	seed.Env = append(os.Environ(), "GOCACHE="+userCache, "GOMODCACHE="+userMods, "GOFLAGS=", "GOTOOLCHAIN=local", "GOPROXY=off")
	if out, err := seed.CombinedOutput(); err != nil {
		t.Fatalf("seeding the user's cache: %v\n%s", err, out)
	}
	before := tree(t, filepath.Join(base, "user"))

	dir := filepath.Join(base, "godwit-cache")
	caches := sandbox.NewCaches(sandbox.CacheOptions{Dir: dir, Writable: []string{d.ws, d.tmp}, Home: filepath.Join(base, "home"),
		GoEnv: func(context.Context, ...string) (map[string]string, error) {
			return map[string]string{"GOCACHE": userCache, "GOMODCACHE": userMods, "GOPROXY": "off"}, nil
		}})
	cfg := writable(d)
	cfg.Caches = caches
	yes, no := true, false
	for _, tt := range []struct {
		command string
		ok      *bool // nil: either (the go command ignores a cache it cannot write)
		out     string
	}{
		{`go env GOCACHE GOMODCACHE`, &yes, filepath.Join(dir, "go-build") + "\n" + filepath.Join(dir, "go", "pkg", "mod")},
		// A hit in the user's cache: nothing compiled.
		{`go build -x ./p 2>&1 | grep -c /compile; true`, &yes, "0\n"},
		{`go build -a ./p && echo built`, &yes, "built"},
		{`touch ` + userCache + `/x`, &no, ""},
		{`echo x > ` + userMods + `/cache/download/planted`, &no, ""},
		{`env -u GOCACHEPROG GOCACHE=` + userCache + ` go build -a ./p`, nil, ""},
		// The read-through pointed at the user's cache as its private one.
		{`set -- $GOCACHEPROG; GOCACHEPROG="$1 $2 ` + userCache + `" go build -a ./p`, nil, ""},
		{`env -u GOCACHEPROG GOCACHE=` + userCache + ` go clean -cache`, nil, ""},
		{`GOMODCACHE=` + userMods + ` go clean -modcache`, &no, ""},
	} {
		code, out := run(t, d, cfg, tt.command)
		if (tt.ok != nil && (code == 0) != *tt.ok) || !strings.Contains(out, tt.out) {
			t.Errorf("%s: exit %d, want %q in the output\n%s", tt.command, code, tt.out, out)
		}
	}
	// Byte for byte: the same paths, the same contents. (Modes are not
	// compared: Landlock does not govern chmod, and go clean -modcache
	// makes the tree writable before it fails to remove it.)
	if after := tree(t, filepath.Join(base, "user")); !maps.Equal(before, after) {
		for p, v := range after {
			if before[p] != v {
				t.Errorf("the user's caches changed: %s: %.80q -> %.80q", p, before[p], v)
			}
		}
		for p := range before {
			if _, ok := after[p]; !ok {
				t.Errorf("the user's caches changed: %s removed", p)
			}
		}
	}
	if entries, _ := filepath.Glob(filepath.Join(dir, "go-build", "*", "*-a")); len(entries) == 0 {
		t.Errorf("nothing in the private build cache")
	}
	// A read-only command gets none of it.
	ro := cfg
	ro.ReadOnly = true
	if code, out := run(t, d, ro, `echo "[$GOCACHE]"`); code != 0 || strings.Contains(out, dir) {
		t.Errorf("read-only: exit %d\n%s", code, out)
	}
}

// tree is every path under dir with its type and a file's content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		v := fi.Mode().Type().String()
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		m[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

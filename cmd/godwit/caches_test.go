//go:build linux

package main

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/sandbox"
	"github.com/godwit/godwit/llm/llmtest"
)

// TestGoTestUnderYes: under --yes, `go test ./...` of a module whose
// dependency the user has downloaded passes with no network (the user's
// GOPROXY is off), twice, the second run from godwit's cache; the user's
// build and module caches are untouched, byte for byte, mode and time.
func TestGoTestUnderYes(t *testing.T) {
	if _, err := sandbox.Status(); err != nil {
		t.Skipf("skipped: %v", err)
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("skipped: no go command")
	}
	const dep, ver = "github.com/bmatcuk/doublestar/v4", "v4.10.4" // a leaf module godwit itself builds with
	sums := goSumLines(t, dep+" "+ver)
	user := t.TempDir()
	userCache := filepath.Join(user, ".cache", "go-build")
	t.Cleanup(func() { _ = exec.Command("chmod", "-R", "u+w", user).Run() }) // Go leaves its module cache read-only
	ws := t.TempDir()
	for name, body := range map[string]string{
		"go.mod":        "module example.com/small\n\ngo 1.21\n\nrequire " + dep + " " + ver + "\n",
		"go.sum":        sums,
		"small.go":      "package small\n\nimport \"" + dep + "\"\n\n// Go reports whether name is a Go file.\nfunc Go(name string) bool { ok, _ := doublestar.Match(\"**/*.go\", name); return ok }\n",
		"small_test.go": "package small\n\nimport \"testing\"\n\nfunc TestGo(t *testing.T) {\n\tif !Go(\"a/b.go\") || Go(\"a.md\") {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The user's own environment: Go's defaults under HOME, no network.
	env := []string{"HOME=" + user, "GOPROXY=off", "GOFLAGS=", "GOTOOLCHAIN=local"}
	for _, kv := range baseEnv() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GOCACHE", "GOMODCACHE", "GOPATH", "GOCACHEPROG", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "GOENV":
			env = append(env, name+"=") // unset: the defaults under HOME
		}
	}
	userGo := func(extra ...string) {
		t.Helper()
		cmd := exec.Command("go", "test", "./...")
		cmd.Dir = ws
		cmd.Env = append(append(baseEnv(), env...), extra...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the user's own go test: %v\n%s", err, out)
		}
	}
	// The user downloaded the module and ran the tests once, outside
	// godwit. (Their build cache is filled from this machine's through
	// godwit's read-through program, so no standard library is compiled.)
	userGo("GOPROXY=file://"+filepath.ToSlash(filepath.Join(goEnv(t, "GOMODCACHE"), "cache", "download")),
		"GOCACHEPROG="+binary+" __godwit_gocache "+userCache+" "+goEnv(t, "GOCACHE"))
	before := fingerprint(t, user)

	home := t.TempDir()
	for run, want := range []string{"ok  \texample.com/small\t", "ok  \texample.com/small\t(cached)"} {
		srv := llmtest.NewTestServer(t,
			llmtest.ChatReply(llmtest.ChatToolCall("c1", "shell_exec", jsonArgs(map[string]any{"command": "go test ./...", "timeout_s": 600})), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(10, 1)),
			llmtest.ChatTextReply("done", 10, 1),
		)
		cfg := "providers:\n  local:\n    type: openai-chat\n    base_url: " + srv.URL() + "/v1\n    no_key: true\n"
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		r := godwit(t, home, ws, env, "run", "--yes", "--model", "local/m", "-p", "run the tests")
		took := time.Since(start)
		if r.code != 0 {
			t.Fatalf("run %d: exit %d: %s", run+1, r.code, r.stderr)
		}
		result := toolResult(t, srv.Requests()[1].Body, "c1")
		if !strings.Contains(result, want) || !strings.Contains(result, "[exit 0") {
			t.Fatalf("run %d: the model read:\n%s", run+1, result)
		}
		t.Logf("run %d: %s; godwit's caches: %s", run+1, took.Round(10*time.Millisecond), duSizes(t, filepath.Join(home, "cache")))
	}
	if after := fingerprint(t, user); after != before {
		t.Errorf("the user's caches changed:\n%s", diffLines(before, after))
	}
}

// goSumLines are godwit's own go.sum lines for a module version.
func goSumLines(t *testing.T, modVer string) string {
	t.Helper()
	f, err := os.Open("../../go.sum")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), modVer+" ") || strings.HasPrefix(sc.Text(), modVer+"/go.mod ") {
			b.WriteString(sc.Text() + "\n")
		}
	}
	if b.Len() == 0 {
		t.Fatalf("%s is not in go.sum", modVer)
	}
	return b.String()
}

// fingerprint is every path under dir with its mode, time and the
// SHA-256 of its content, one a line. (The content itself, hex-encoded
// with fmt, was ~200 MB of string for a 54 MB build cache and took most
// of a minute under -race.)
func fingerprint(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %s %d", p, fi.Mode(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %x", sha256.Sum256(data))
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func diffLines(a, b string) string {
	in := map[string]bool{}
	for _, l := range strings.Split(a, "\n") {
		in[l] = true
	}
	var out []string
	for _, l := range strings.Split(b, "\n") {
		if !in[l] {
			out = append(out, "+ "+l[:min(len(l), 200)])
		}
	}
	return strings.Join(out, "\n")
}

// duSizes is the size of each folder under dir, for the log.
func duSizes(t *testing.T, dir string) string {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var parts []string
	for _, e := range entries {
		var n int64
		_ = filepath.WalkDir(filepath.Join(dir, e.Name()), func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil {
					n += fi.Size()
				}
			}
			return nil
		})
		parts = append(parts, fmt.Sprintf("%s %.1f MiB", e.Name(), float64(n)/(1<<20)))
	}
	return strings.Join(parts, ", ")
}

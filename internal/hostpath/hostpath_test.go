package hostpath

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func program(t *testing.T, dir, name string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLookPathSkipsTheWorkspace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("programs here are shell scripts")
	}
	base := t.TempDir()
	ws, host := filepath.Join(base, "ws"), filepath.Join(base, "host")
	program(t, filepath.Join(ws, "bin"), "tool")
	want := program(t, host, "tool")
	link := filepath.Join(base, "link") // a symlink into the workspace
	if err := os.Symlink(filepath.Join(ws, "bin"), link); err != nil {
		t.Fatal(err)
	}
	sep := string(filepath.ListSeparator)
	for _, path := range []string{
		filepath.Join(ws, "bin") + sep + host,
		link + sep + host,
		"bin" + sep + "." + sep + sep + host, // relative and empty entries
		filepath.Join(base, "missing") + sep + host,
	} {
		t.Setenv("PATH", path)
		got, err := LookPath("tool", ws)
		if err != nil || got != want {
			t.Errorf("PATH=%s: LookPath = %q, %v; want %q", path, got, err, want)
		}
	}
	t.Setenv("PATH", filepath.Join(ws, "bin"))
	if got, err := LookPath("tool", ws); err == nil {
		t.Errorf("only the workspace on PATH: LookPath = %q, want an error", got)
	}
	if got := Path(host+sep+filepath.Join(ws, "bin"), ws); got != host {
		t.Errorf("Path = %q, want %q", got, host)
	}
	if got := Path(strings.Join([]string{host, ws}, sep)); got != host+sep+ws {
		t.Errorf("Path with no dirs = %q, want both", got)
	}
}

//go:build unix

package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A workspace folder on PATH (direnv's PATH_add bin) must not supply the
// shell every command line runs in: its bin/bash would run past the
// deny rules.
func TestShellNotFromTheWorkspace(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	ws := t.TempDir()
	bin := filepath.Join(ws, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "bash"), []byte("#!/bin/sh\ntouch planted\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	s := New(Options{Workdir: ws})
	if strings.HasPrefix(s.shellPath, ws) || s.shellName != "bash" {
		t.Fatalf("shell = %s (%s), want the host's bash", s.shellPath, s.shellName)
	}
}

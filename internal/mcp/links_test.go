package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/godwit/godwit/internal/tool/workspace"
)

// TestProjectFileLinkOut: .mcp.json comes with the repository; a link
// out of it is not read.
func TestProjectFileLinkOut(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "servers.json"), []byte(`{"mcpServers":{"x":{"command":"true"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../servers.json", filepath.Join(ws, ProjectFile)); err != nil {
		t.Fatal(err)
	}
	if s, err := ReadProjectFile(ws); !errors.Is(err, workspace.ErrOutside) || s != nil {
		t.Errorf("ReadProjectFile = %v, %v; want ErrOutside", s, err)
	}
}

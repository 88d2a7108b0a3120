package fs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/internal/tool/workspace"
)

// BenchmarkGrepGoroot searches the Go source tree, as bench/grep.sh does
// next to ripgrep: patterns with a literal to look for first, and
// patterns with none (the DFA reads every byte). The tree is the go
// command's (go env GOROOT), as in the script: runtime.GOROOT is
// deprecated, and names the tree this test binary was built from, which
// need not be on this machine.
func BenchmarkGrepGoroot(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("no go command to find the Go source tree: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	for _, bc := range []struct{ name, pattern string }{
		{"literal", `func \w+Marshal`},
		{"ignore_case", `(?i)unmarshaltext`},
		{"no_literal", `[A-Z]{4}[0-9]{4}`},
		{"no_literal_eol", `\s+$`},
		{"no_literal_word", `\b[a-z]{20,}\b`},
		{"no_literal_han", `[\x{4e00}-\x{9fff}]`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ws, err := workspace.New(src)
			if err != nil {
				b.Skip(err)
			}
			g := fs.NewGrep(ws)
			args, _ := json.Marshal(map[string]any{"pattern": bc.pattern, "max_results": 5000})
			b.ReportAllocs()
			for b.Loop() {
				res, err := g.Run(context.Background(), args)
				if err != nil || strings.HasPrefix(res.Content, "no matches") {
					b.Fatalf("%v %.200s", err, res.Content)
				}
			}
		})
	}
}

const tenMB = 10 << 20

// bigFile writes a 10 MB file of short lines with one marker line in the
// middle.
func bigFile(b *testing.B) (*workspace.Workspace, string) {
	root := b.TempDir()
	var sb strings.Builder
	sb.Grow(tenMB + 100)
	for i := 0; sb.Len() < tenMB; i++ {
		if i == 100000 {
			sb.WriteString("MARKER-0 in the middle\n")
		}
		fmt.Fprintf(&sb, "%08d the quick brown fox jumps over the lazy dog\n", i)
	}
	p := filepath.Join(root, "big.txt")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	ws, err := workspace.New(root)
	if err != nil {
		b.Fatal(err)
	}
	return ws, p
}

// BenchmarkFileRead10MB: allocations stay near the 2,000 lines returned
// (about 110 KB), not the 10 MB file.
func BenchmarkFileRead10MB(b *testing.B) {
	ws, _ := bigFile(b)
	rd := fs.NewRead(ws)
	for _, bc := range []struct{ name, args string }{
		{"head", `{"path":"big.txt"}`},
		{"middle", `{"path":"big.txt","start_line":100000,"end_line":100100}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rd.Run(context.Background(), json.RawMessage(bc.args)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFileEdit10MB: allocations stay near one copy of the file (the
// read); the write streams the pieces.
func BenchmarkFileEdit10MB(b *testing.B) {
	ws, _ := bigFile(b)
	ed := fs.NewEdit(ws, fs.Options{})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		args := fmt.Sprintf(`{"path":"big.txt","old_text":"MARKER-%d ","new_text":"MARKER-%d "}`, i, i+1)
		if _, err := ed.Run(context.Background(), json.RawMessage(args)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

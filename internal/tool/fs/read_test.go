package fs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/tool"
)

func TestFileRead(t *testing.T) {
	long := strings.Repeat("é", 1500) // 3000 bytes
	big := strings.Repeat(strings.Repeat("x", 999)+"\n", 100)
	ws, root := newWS(t, map[string]string{
		"five.txt":    lines(5),
		"many.txt":    lines(2500),
		"big.txt":     big,
		"long.txt":    "short\n" + long + "\nend",
		"crlf.txt":    "a\r\nb\r\n",
		"nonl.txt":    "a\nb",
		"empty.txt":   "",
		"bin.dat":     "text\x00more",
		"latin1.txt":  strings.Repeat("Le caf\xe9 est tr\xe8s bon, merci beaucoup. ", 10),
		"garbage.dat": strings.Repeat("\xff\xfe\x80", 100),
		"dir/x.txt":   "x",
	})
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	rd := fs.NewRead(ws)
	tests := []struct {
		name string
		args any
		want string // exact content, or
		has  []string
		code string
	}{
		{name: "whole file", args: map[string]any{"path": "five.txt"}, want: numbered(1, 5)},
		{name: "range", args: map[string]any{"path": "five.txt", "start_line": 2, "end_line": 3},
			want: numbered(2, 3) + "[lines 2-3 of 5]\n"},
		{name: "range to the end", args: map[string]any{"path": "five.txt", "start_line": 4, "end_line": 9}, want: numbered(4, 5)},
		{name: "start only", args: map[string]any{"path": "five.txt", "start_line": 5}, want: numbered(5, 5)},
		{name: "absolute path", args: map[string]any{"path": filepath.Join(root, "five.txt"), "end_line": 1},
			want: numbered(1, 1) + "[lines 1-1 of 5]\n"},
		{name: "line cap", args: map[string]any{"path": "many.txt"},
			want: numbered(1, 2000) + "[truncated: lines 1-2000 of 2500 shown; call file_read with start_line=2001]\n"},
		{name: "read on", args: map[string]any{"path": "many.txt", "start_line": 2001}, want: numbered(2001, 2500)},
		{name: "byte cap", args: map[string]any{"path": "big.txt"},
			has: []string{"\n51\t", "[truncated: lines 1-51 of 100 shown; call file_read with start_line=52]"}},
		{name: "long line cut", args: map[string]any{"path": "long.txt"},
			want: "1\tshort\n2\t" + strings.Repeat("é", 1000) + " …[line cut at 2000 of 3000 bytes]\n3\tend\n"},
		{name: "crlf", args: map[string]any{"path": "crlf.txt"}, want: "1\ta\n2\tb\n"},
		{name: "no final newline", args: map[string]any{"path": "nonl.txt"}, want: "1\ta\n2\tb\n"},
		{name: "empty", args: map[string]any{"path": "empty.txt"}, want: "[empty file]"},
		{name: "latin1 is text", args: map[string]any{"path": "latin1.txt"}, has: []string{"1\tLe caf"}},
		{name: "past the end", args: map[string]any{"path": "five.txt", "start_line": 7}, code: tool.CodeBadArgs,
			has: []string{"past the end of the file (5 lines)", "between 1 and 5"}},
		{name: "end before start", args: map[string]any{"path": "five.txt", "start_line": 3, "end_line": 2}, code: tool.CodeBadArgs},
		{name: "negative start", args: map[string]any{"path": "five.txt", "start_line": -1}, code: tool.CodeBadArgs},
		{name: "missing path", args: map[string]any{}, code: tool.CodeBadArgs, has: []string{"path is required"}},
		{name: "wrong type", args: `{"path":"five.txt","start_line":"3"}`, code: tool.CodeBadArgs, has: []string{"start_line must be an integer, not string"}},
		{name: "unknown field", args: `{"file_path":"five.txt"}`, code: tool.CodeBadArgs, has: []string{`unknown argument "file_path"`, "path, optional start_line"}},
		{name: "not json", args: `{"path":`, code: tool.CodeBadArgs},
		{name: "missing file", args: map[string]any{"path": "nope.txt"}, code: tool.CodeNotFound, has: []string{"nope.txt"}},
		{name: "directory", args: map[string]any{"path": "dir"}, code: tool.CodeIsDir, has: []string{"file_list"}},
		{name: "file as folder", args: map[string]any{"path": "five.txt/x"}, code: tool.CodeNotDir},
		{name: "binary", args: map[string]any{"path": "bin.dat"}, code: tool.CodeBinary},
		{name: "invalid utf8", args: map[string]any{"path": "garbage.dat"}, code: tool.CodeBinary},
		{name: "dotdot escape", args: map[string]any{"path": "../x"}, code: tool.CodeOutsideWorkspace},
		{name: "symlink escape", args: map[string]any{"path": "link"}, code: tool.CodeOutsideWorkspace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, te := call(t, rd, tt.args)
			got := res.Content
			if tt.code != "" {
				if te == nil || te.Code != tt.code {
					t.Fatalf("got %q, %v; want code %s", got, te, tt.code)
				}
				got = te.Error()
			} else if te != nil {
				t.Fatalf("unexpected error %v", te)
			}
			if tt.want != "" && got != tt.want {
				t.Errorf("got:\n%.500s\nwant:\n%.500s", got, tt.want)
			}
			for _, h := range tt.has {
				if !strings.Contains(got, h) {
					t.Errorf("output lacks %q:\n%.2000s", h, got)
				}
			}
		})
	}
}

// A small model window bounds one read: it stops at a line within the
// window's share and says where to read on.
func TestFileReadFitsTheWindowsShare(t *testing.T) {
	ws, _ := newWS(t, map[string]string{"many.txt": lines(2500)})
	read := fs.Tools(ws, fs.Options{})[0]
	ctx := tool.WithSession(context.Background(), tool.Session{ID: "s", MaxOutputBytes: 8000})
	raw, _ := json.Marshal(map[string]any{"path": "many.txt"})
	res, err := read.Run(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) > 8200 || !strings.Contains(res.Content, "call file_read with start_line=") {
		t.Errorf("%d bytes; ends %q", len(res.Content), res.Content[len(res.Content)-120:])
	}
}

// Bytes only guess at tokens: a dense file within the byte cap can pass
// the share in tokens. With the window's counter in the session, the read
// stops at the line where the share is reached and says where to go on.
func TestFileReadFitsTheSharesTokens(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "{%d, %d, %d, %d},\n", i*7919%10007, i*104729%99991, i, i*i%65521)
	}
	ws, _ := newWS(t, map[string]string{"table.txt": b.String()})
	read := fs.Tools(ws, fs.Options{})[0]
	// A token every two bytes: denser than the 3 bytes MaxOutputBytes
	// assumes.
	count := func(s string) int { return len(s) / 2 }
	ctx := tool.WithSession(context.Background(), tool.Session{ID: "s", MaxOutputBytes: 9000, MaxOutputTokens: 3000, CountTokens: count})
	raw, _ := json.Marshal(map[string]any{"path": "table.txt"})
	res, err := read.Run(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	body := res.Content[:strings.LastIndex(res.Content, "[truncated")]
	if n := count(body); n > 3000 || n < 2800 {
		t.Errorf("the read is %d tokens, the share 3000", n)
	}
	lastLine := strings.Count(body, "\n")
	want := fmt.Sprintf("[truncated: lines 1-%d of 2000 shown; call file_read with start_line=%d]", lastLine, lastLine+1)
	if !strings.Contains(res.Content, want) {
		t.Errorf("footer %q, want %q", res.Content[len(body):], want)
	}
}

package fs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/tool/fs"
	"github.com/godwit/godwit/tool"
)

func TestFileEdit(t *testing.T) {
	goFile := "package p\n\nfunc f() {\n\tif x {\n\t\treturn 1\n\t}\n\treturn 2\n}\n"
	tests := []struct {
		name    string
		file    string // content of f.txt; "-" for no file
		args    map[string]any
		after   string   // f.txt afterwards (when no code)
		has     []string // in the result content, or in the error
		code    string
		changed bool
	}{
		{name: "exact", file: "a\nb\nc\n", args: map[string]any{"old_text": "b", "new_text": "B"}, after: "a\nB\nc\n",
			has: []string{"edited f.txt: 1 replacement, +1 -1 lines\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"}},
		{name: "delete lines", file: "a\nb\nc\n", args: map[string]any{"old_text": "b\n", "new_text": ""}, after: "a\nc\n",
			has: []string{"@@ -1,3 +1,2 @@\n a\n-b\n c\n"}},
		{name: "multiple", file: "x\ny\nx\nz\nx\n", args: map[string]any{"old_text": "x", "new_text": "w"},
			code: tool.CodeEditMultipleMatch, has: []string{"matches 3 places, at lines 1, 3, 5", "replace_all"}},
		{name: "replace all", file: "x\ny\nx\nz\nx\n", args: map[string]any{"old_text": "x", "new_text": "w", "replace_all": true},
			after: "w\ny\nw\nz\nw\n", has: []string{"3 replacements, +3 -3 lines"}},
		{name: "crlf file, lf old_text", file: "a\r\nb\r\nc\r\n", args: map[string]any{"old_text": "a\nb\n", "new_text": "A\nB\nB2\n"},
			after: "A\r\nB\r\nB2\r\nc\r\n", has: []string{"+3 -2"}},
		{name: "mixed endings: tolerant", file: "a\nb\r\nc\n", args: map[string]any{"old_text": "a\nb\nc", "new_text": "x\ny"},
			after: "x\ny\n", has: []string{"(matched ignoring line endings)"}},
		{name: "trailing whitespace", file: "a  \nb\t\nc\n", args: map[string]any{"old_text": "a\nb\n", "new_text": "A\nB\n"},
			after: "A\nB\nc\n", has: []string{"(matched ignoring trailing whitespace)"}},
		{name: "indentation added back", file: goFile,
			args:  map[string]any{"old_text": "if x {\n\treturn 1\n}", "new_text": "if y {\n\treturn 3\n}"},
			after: strings.Replace(strings.Replace(goFile, "if x", "if y", 1), "return 1", "return 3", 1),
			has:   []string{"(matched ignoring indentation)"}},
		{name: "indentation removed", file: "def f():\n    x = 1\n    y = 2\n",
			args:  map[string]any{"old_text": "        x = 1\n        y = 2\n", "new_text": "        x = 10\n        y = 20\n"},
			after: "def f():\n    x = 10\n    y = 20\n"},
		{name: "uneven indentation is no match", file: "a\n  b\n    c\n",
			args: map[string]any{"old_text": "a\nb\nc", "new_text": "x"}, code: tool.CodeEditNoMatch},
		{name: "tolerant but ambiguous", file: "  a\n  b\nz\n    a\n    b\n",
			args: map[string]any{"old_text": "a\nb", "new_text": "x"}, code: tool.CodeEditMultipleMatch,
			has: []string{"2 places ignoring indentation, at lines 1, 4"}},
		{name: "no match shows closest region", file: lines(40) + "func Foo(a int) error {\n\treturn nil\n}\n" + lines(40),
			args: map[string]any{"old_text": "func Foo(a int) error {\n\treturn err\n}", "new_text": "x"},
			code: tool.CodeEditNoMatch, has: []string{"closest region is lines 41-43:\n41\tfunc Foo(a int) error {\n42\t\treturn nil\n43\t}",
				"Re-read lines 41-43 with file_read, then edit with the exact text."}},
		{name: "no match, similar line", file: lines(10) + "const limit = 100\n" + lines(10),
			args: map[string]any{"old_text": "const limt = 100", "new_text": "x"}, code: tool.CodeEditNoMatch,
			has: []string{"lines 11-11:\n11\tconst limit = 100"}},
		{name: "no match, nothing alike", file: "aaaa\n", args: map[string]any{"old_text": "zzzz qqqq", "new_text": "x"},
			code: tool.CodeEditNoMatch, has: []string{"no similar text"}},
		{name: "line numbers copied", file: "a\nb\n", args: map[string]any{"old_text": "1\ta\n2\tb", "new_text": "x"},
			code: tool.CodeEditNoMatch, has: []string{"drop the \"N<tab>\" prefixes"}},
		{name: "empty old creates", file: "-", args: map[string]any{"old_text": "", "new_text": "hello\n"}, after: "hello\n",
			has: []string{"created f.txt: +1 lines"}},
		{name: "empty old fills empty file", file: "", args: map[string]any{"old_text": "", "new_text": "x"}, after: "x"},
		{name: "empty old on content", file: "a", args: map[string]any{"old_text": "", "new_text": "x"}, code: tool.CodeBadArgs,
			has: []string{"file_write"}},
		{name: "identical", file: "a", args: map[string]any{"old_text": "a", "new_text": "a"}, code: tool.CodeBadArgs},
		{name: "missing new_text", file: "a", args: map[string]any{"old_text": "a"}, code: tool.CodeBadArgs},
		{name: "missing file", file: "-", args: map[string]any{"old_text": "a", "new_text": "b"}, code: tool.CodeNotFound},
		{name: "outside", file: "a", args: map[string]any{"path": "../f.txt", "old_text": "a", "new_text": "b"}, code: tool.CodeOutsideWorkspace},
		{name: "binary", file: "a\x00b", args: map[string]any{"old_text": "a", "new_text": "b"}, code: tool.CodeBinary},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"f.txt": tt.file}
			if tt.file == "-" {
				files = nil
			}
			ws, root := newWS(t, files)
			if _, ok := tt.args["path"]; !ok {
				tt.args["path"] = "f.txt"
			}
			res, te := call(t, fs.NewEdit(ws, fs.Options{}), tt.args)
			got := res.Content
			if tt.code != "" {
				if te == nil || te.Code != tt.code {
					t.Fatalf("got %q, %v; want code %s", res.Content, te, tt.code)
				}
				got = te.Error()
				if tt.file != "-" && readFile(t, filepath.Join(root, "f.txt")) != tt.file {
					t.Error("a failed edit changed the file")
				}
			} else {
				if te != nil {
					t.Fatal(te)
				}
				if after := readFile(t, filepath.Join(root, "f.txt")); after != tt.after {
					t.Errorf("file is %q, want %q", after, tt.after)
				}
				if len(res.Changed) != 1 || res.Changed[0] != "f.txt" {
					t.Errorf("Changed = %v", res.Changed)
				}
				if !strings.HasPrefix(res.Diff, "--- a/f.txt\n+++ b/f.txt\n@@") {
					t.Errorf("Diff = %q", res.Diff)
				}
			}
			for _, h := range tt.has {
				if !strings.Contains(got, h) {
					t.Errorf("output lacks %q:\n%s", h, got)
				}
			}
		})
	}
}

func TestFileEditKeepsMode(t *testing.T) {
	ws, root := newWS(t, map[string]string{"x.sh": "echo a\n"})
	p := filepath.Join(root, "x.sh")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	mustCall(t, fs.NewEdit(ws, fs.Options{}), map[string]any{"path": "x.sh", "old_text": "a", "new_text": "b"})
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755", fi.Mode().Perm())
	}
	assertNoTemp(t, root)
}

func TestFileEditDiff(t *testing.T) {
	// Far-apart replacements give separate hunks with the right numbers.
	file := strings.Replace(strings.Replace(lines(30), "line 2\n", "X\n", 1), "line 25\n", "X\n", 1)
	ws, _ := newWS(t, map[string]string{"f.txt": file})
	res := mustCall(t, fs.NewEdit(ws, fs.Options{}), map[string]any{"path": "f.txt", "old_text": "X\n", "new_text": "Y\nY2\n", "replace_all": true})
	want := "--- a/f.txt\n+++ b/f.txt\n" +
		"@@ -1,5 +1,6 @@\n line 1\n-X\n+Y\n+Y2\n line 3\n line 4\n line 5\n" +
		"@@ -22,7 +23,8 @@\n line 22\n line 23\n line 24\n-X\n+Y\n+Y2\n line 26\n line 27\n line 28\n"
	if res.Diff != want {
		t.Errorf("diff:\n%s\nwant:\n%s", res.Diff, want)
	}
}

func TestEditAccessPreview(t *testing.T) {
	ws, root := newWS(t, map[string]string{"f.txt": "a\nb\n"})
	raw, _ := jsonArgs(map[string]any{"path": "f.txt", "old_text": "b", "new_text": "c"})
	acc, err := fs.NewEdit(ws, fs.Options{}).Access(raw)
	if err != nil {
		t.Fatal(err)
	}
	if acc.Summary != "edit f.txt" || !acc.Mutates || acc.Paths[0] != (tool.PathAccess{Path: filepath.Join(root, "f.txt"), Write: true}) {
		t.Errorf("Access = %+v", acc)
	}
	if acc.Preview != "@@ -1,2 +1,2 @@\n a\n-b\n+c\n" {
		t.Errorf("Preview = %q", acc.Preview)
	}
	if readFile(t, filepath.Join(root, "f.txt")) != "a\nb\n" {
		t.Error("Access changed the file")
	}
}

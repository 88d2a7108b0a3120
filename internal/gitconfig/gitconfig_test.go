package gitconfig

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/peertest"
)

// list renders settings as `git config --list` prints them.
func list(settings []Setting) string {
	var b strings.Builder
	for _, s := range settings {
		if s.Section != "" {
			b.WriteString(strings.ToLower(s.Section) + ".")
		}
		if s.Subsection != "" {
			b.WriteString(s.Subsection + ".")
		}
		b.WriteString(strings.ToLower(s.Key))
		if !s.NoValue {
			b.WriteString("=" + s.Value)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// parseCases are config texts and what git makes of them ("error" for a
// bad config line), checked against git itself where it is installed.
var parseCases = []struct{ text, want string }{
	{"[alias]\n\tco = checkout\n", "alias.co=checkout\n"},
	{"[Alias]\n\tCo = checkout", "alias.co=checkout\n"},
	{"[alias \"X\"]\n\tco = checkout\n", "alias.X.co=checkout\n"},
	{"[alias.X]\n\tco = checkout\n", "alias.x.co=checkout\n"},
	{"[a.b \"C\"]\n\tk = v\n", "a.b.C.k=v\n"},
	{"[alias] co = x ; c\n", "alias.co=x\n"},
	{"[alias]co=x\n", "alias.co=x\n"},
	{"\xef\xbb\xbf[alias]\r\n\tco = x\r\n", "alias.co=x\n"},
	{"# c\n; c\n\n[core]\n\tbare\n\thooksPath=  /x/y  \n", "core.bare\ncore.hookspath=/x/y\n"},
	// A continuation joins the next line; # and ; in quotes are text.
	{"[alias]\n\tco = !echo a \\\n b\n", "alias.co=!echo a  b\n"},
	{"[alias]\n\tco = \"!sh -c \\\"a ; b\\\"\" # c\n", "alias.co=!sh -c \"a ; b\"\n"},
	{"[alias]\n\tco = a\\tb\\nc\n", "alias.co=a\tb\nc\n"},
	{"[alias]\n# x \\\n\tco = !rm -rf .\n", "alias.co=!rm -rf .\n"}, // a comment joins nothing
	{"[alias]\n\tco =\"  a  \"  b  \n", "alias.co=  a    b\n"},
	{"[b \"s\\\"q\\\\x\"]\n\tk = v\n", "b.s\"q\\x.k=v\n"},
	{"[remote \"o\"]\n\turl = https://u:t@h/x\n[remote \"o\"]\n\tfetch = +refs/*\n", "remote.o.url=https://u:t@h/x\nremote.o.fetch=+refs/*\n"},
	{"[includeIf \"gitdir:~/a/\"]\n\tpath = y\n", "includeif.gitdir:~/a/.path=y\n"},
	// What git refuses.
	{"[alias]\n\tco = a\\x\n", "error"},
	{"[alias]\n\tco = \"open\n", "error"},
	{"[alias]\n\tc_o = x\n", "error"},
	{"[alias]\n\t1co = x\n", "error"},
	{"[alias]\n\tco x\n", "error"},
	{"[alias\n\tco = x\n", "error"},
	{"[alias \"x]\n", "error"},
	{"[alias \"x\" ]\n", "error"},
	{"[al_ias]\n", "error"},
	{"[]\n", "error"},
	{"\xef\xbb[alias]\n", "error"},
	{"k = v\n", "k=v\n"},
	{"[a.b.C \"D\"]\n\tx=1\n", "a.b.c.D.x=1\n"},
	{"[a\t\"b\"] ; c\n\tx\t=\t1\t\n", "a.b.x=1\n"},
	{"[a]\n\tx = \v1\r2\n", "a.x=\v1 2\n"},
	{"[a]\n\tx = \"a\\\nb\"\n\ty = z\\", "a.x=ab\na.y=z\n"},
	{"[a \"b\\\nc\"]\n", "error"},
}

// stricter are texts git reads that Parse refuses: an empty section or
// subsection name, a NUL (git cuts the value at it).
var stricter = []string{"[alias.]\n\tco = x\n", "[.alias]\n\tco = x\n", "[alias]\n\tco = x\x00y\n"}

func TestParse(t *testing.T) {
	dir := t.TempDir()
	_, gitErr := exec.LookPath("git")
	for i, tc := range parseCases {
		s, err := Parse([]byte(tc.text))
		got := list(s)
		if err != nil {
			got = "error"
		}
		if got != tc.want {
			t.Errorf("%q: got %q (%v), want %q", tc.text, got, err, tc.want)
		}
		if gitErr != nil {
			continue
		}
		f := filepath.Join(dir, "c"+string(rune('a'+i)))
		if err := os.WriteFile(f, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("git", "config", "--file", f, "--list").Output()
		if git := string(out); err != nil && tc.want != "error" || err == nil && git != tc.want {
			t.Errorf("%q: git says %q (%v), the table %q", tc.text, git, err, tc.want)
		}
	}
	for _, text := range stricter {
		if s, err := Parse([]byte(text)); err == nil {
			t.Errorf("%q: read as %q, want an error", text, list(s))
		}
	}
	if gitErr != nil {
		peertest.Missing(t, "git is not installed, so the table is not checked against it (apt-get install git)")
	}
}

func TestFormatReadsBack(t *testing.T) {
	in := []Setting{
		{Section: "core", Key: "bare", NoValue: true},
		{Section: "core", Key: "hooksPath", Value: " a;b\t\"c\"\\ "},
		{Section: "remote", Subsection: `o "x\`, Key: "url", Value: "u\nv"},
		{Section: "remote", Subsection: `o "x\`, Key: "fetch", Value: "#"},
		{Section: "core", Key: "x", Value: ""},
	}
	got, err := Parse(Format(in))
	if err != nil || !slices.Equal(got, in) {
		t.Errorf("read back %+v (%v), want %+v\n%s", got, err, in, Format(in))
	}
}

func TestReadFileAndIncludes(t *testing.T) {
	dir := t.TempDir()
	if s, err := ReadFile(filepath.Join(dir, "none")); s != nil || err != nil {
		t.Errorf("a missing file: %v, %v; want no settings", s, err)
	}
	f := filepath.Join(dir, "config")
	if err := os.WriteFile(f, []byte("[include]\n\tpath = a\n\tpath = ~/b\n\tpath = /c\n[includeIf \"onbranch:x\"]\n\tpath = d\n[core]\n\tpath = e\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a"), "/h/b", "/c", filepath.Join(dir, "d")}
	if got := Includes(s, f, "/h"); !slices.Equal(got, want) {
		t.Errorf("Includes = %q, want %q", got, want)
	}
	if err := os.WriteFile(f, []byte("[core]\n\tx = \"open\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(f); err == nil || !strings.Contains(err.Error(), "bad config line 2") {
		t.Errorf("a bad file: err = %v", err)
	}
}

// TestFindRepo: a .git folder, a link to one, a gitdir file with a
// commondir (a linked worktree), and none.
func TestFindRepo(t *testing.T) {
	base := t.TempDir()
	main, wt, linked := filepath.Join(base, "main"), filepath.Join(base, "wt"), filepath.Join(base, "linked")
	gd := filepath.Join(main, ".git")
	wgd := filepath.Join(gd, "worktrees", "wt")
	for _, d := range []string{filepath.Join(main, "sub"), wgd, wt, linked} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{filepath.Join(wt, ".git"): "gitdir: " + wgd + "\n", filepath.Join(wgd, "commondir"): "../..\n"} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(gd, filepath.Join(linked, ".git")); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]Repo{
		filepath.Join(main, "sub"): {DotGit: gd, GitDir: gd, Common: gd, WorkTree: main},
		wt:                         {DotGit: filepath.Join(wt, ".git"), GitDir: wgd, Common: gd, WorkTree: wt},
		linked:                     {DotGit: filepath.Join(linked, ".git"), GitDir: filepath.Join(linked, ".git"), Common: filepath.Join(linked, ".git"), WorkTree: linked},
	} {
		if got, ok := FindRepo(dir); !ok || got != want {
			t.Errorf("%s: %+v %v, want %+v", dir, got, ok, want)
		}
	}
	if got, ok := FindRepo(t.TempDir()); ok || got != (Repo{}) {
		t.Errorf("no repository: %+v %v", got, ok)
	}
}

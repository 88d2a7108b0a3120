package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func splitEnv(t *testing.T) (ShellEnv, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, os.MkdirAll(filepath.Join(root, "src"), 0o755))
	return ShellEnv{Dir: root, Home: "/home/u", Vars: map[string]string{"TMPDIR": "/tmp/g", "HOME": "/home/u"}, DirExists: isDir}, root
}

// names renders what Split found: commands as their words joined by
// spaces, redirects as "OP target".
func names(sc Script) (cmds, redirs []string) {
	for _, c := range sc.Commands {
		var ws []string
		for _, w := range c.Words {
			ws = append(ws, w.Value)
		}
		s := strings.Join(ws, " ")
		if c.Decl != "" {
			s = c.Decl + " " + s
		}
		if len(c.Assigns) > 0 {
			s = strings.Join(c.Assigns, ",") + "= " + s
		}
		cmds = append(cmds, strings.TrimSpace(s))
	}
	for _, r := range sc.Redirects {
		redirs = append(redirs, r.Op+" "+r.Target.Value)
	}
	return cmds, redirs
}

func TestSplit(t *testing.T) {
	env, _ := splitEnv(t)
	tests := []struct {
		line   string
		cmds   string // joined with " | "
		redirs string
	}{
		{"ls -la", "ls -la", ""},
		{"a && b || c; d", "a | b | c | d", ""},
		{"a | b |& c", "a | b | c", ""},
		{"(a; b) && { c; }", "a | b | c", ""},
		{"echo $(rm -rf x) `whoami`", "rm -rf x | whoami | echo $(rm -rf x) $(whoami)", ""},
		{"diff <(ls a) >(wc)", "ls a | wc | diff <(ls a) >(wc)", ""},
		{"f() { rm x; }; f", "rm x | f", ""},
		{"if a; then b; elif c; then d; else e; fi", "a | b | c | d | e", ""},
		{"while a; do b; done; until c; do d; done", "a | b | c | d", ""},
		{"for i in $(seq 3); do echo $i; done", "seq 3 | echo $i", ""},
		{"case $x in a) b;; *) c;; esac", "b | c", ""},
		{"FOO=1 BAR=2 cmd", "FOO,BAR= cmd", ""},
		{"export A=1 B", "A,B= export", ""},
		{"echo x > out 2>/dev/null >>log", "echo x", "> out | 2> /dev/null | >> log"},
		{"cmd 2>&1 >&2 <&0 >&-", "cmd", ""},
		{"cmd &> all", "cmd", "&> all"},
		{"cmd >& both", "cmd", ">& both"},
		{"cat < in <> rw", "cat", "< in | <> rw"},
		{"cat <<EOF\nbody $(id)\nEOF", "id | cat", ""},
		{"cat <<< 'here'", "cat", ""},
		{"{ a; } > out", "a", "> out"},
		{"echo 'a b' \"c $HOME\" d\\ e", "echo a b c /home/u d e", ""},
		{`echo "$TMPDIR/x" ~/y ~+`, "echo /tmp/g/x /home/u/y " + env.Dir, ""},
		{"time a; ! b; c &", "a | b | c", ""},
		{"[[ -n $(a) ]] && (( $(b) ))", "a | b", ""},
		{"x=$(a) y=${z:-$(b)}", "a | b | x,y=", ""},
	}
	for _, tt := range tests {
		sc, err := Split(tt.line, env)
		if err != nil {
			t.Errorf("%q: %v", tt.line, err)
			continue
		}
		cmds, redirs := names(sc)
		if got := strings.Join(cmds, " | "); got != tt.cmds {
			t.Errorf("%q: commands %q, want %q", tt.line, got, tt.cmds)
		}
		if got := strings.Join(redirs, " | "); got != tt.redirs {
			t.Errorf("%q: redirects %q, want %q", tt.line, got, tt.redirs)
		}
	}
}

func TestSplitWords(t *testing.T) {
	env, _ := splitEnv(t)
	tests := []struct {
		word        string
		value       string
		known, glob bool
	}{
		{"plain", "plain", true, false},
		{"'single $x'", "single $x", true, false},
		{`"double \"q\""`, `double "q"`, true, false},
		{`\-delete`, "-delete", true, false},
		{"$'\\x2ddelete'", `\x2ddelete`, false, false},
		{"$UNSET", "$UNSET", false, false},
		{"${TMPDIR}", "/tmp/g", true, false},
		{"${TMPDIR:-x}", "$TMPDIR", false, false},
		{"*.go", "*.go", true, true},
		{`\*.go`, "*.go", true, false},
		{"'*.go'", "*.go", true, false},
		{"-{delete,x}", "-{delete,x}", false, false},
		{"{}", "{}", true, false},
		{"~root/x", "~root/x", false, false},
	}
	for _, tt := range tests {
		sc, err := Split("cmd "+tt.word, env)
		if err != nil || len(sc.Commands) != 1 || len(sc.Commands[0].Words) != 2 {
			t.Errorf("%s: %v %+v", tt.word, err, sc)
			continue
		}
		w := sc.Commands[0].Words[1]
		if (tt.known && w.Value != tt.value) || w.Known != tt.known || w.Glob != tt.glob {
			t.Errorf("%s: got %+v, want value %q known %v glob %v", tt.word, w, tt.value, tt.known, tt.glob)
		}
	}
}

func TestSplitTracksDirectory(t *testing.T) {
	env, root := splitEnv(t)
	src := filepath.Join(root, "src")
	tests := []struct {
		line string
		dirs []string // of each command, in order
	}{
		{"cd src && ls", []string{root, src}},
		{"cd src; ls; cd ..; ls", []string{root, src, src, root}},
		{"(cd src; ls); ls", []string{root, src, root}},
		{"cd missing && ls", []string{root, ""}},
		{"cd $X; ls", []string{root, ""}},
		{"true && cd src; ls", []string{root, root, ""}},
		{"if x; then cd src; fi; ls", []string{root, root, ""}},
		{"cd src | ls; ls", []string{root, root, root}},
		{"cd; ls", []string{root, ""}}, // /home/u does not exist here
		{"cd /; ls", []string{root, "/"}},
		{"popd; ls", []string{root, ""}},
		{"f() { cd src; }; ls", []string{root, ""}},
	}
	for _, tt := range tests {
		sc, err := Split(tt.line, env)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range sc.Commands {
			got = append(got, c.Dir)
		}
		if strings.Join(got, ",") != strings.Join(tt.dirs, ",") {
			t.Errorf("%q: dirs %q, want %q", tt.line, got, tt.dirs)
		}
	}
}

func TestSplitErrors(t *testing.T) {
	env, _ := splitEnv(t)
	for _, line := range []string{"echo 'x", "ls )(", "if then fi", strings.Repeat("( ", 300) + "ls" + strings.Repeat(" )", 300)} {
		if _, err := Split(line, env); err == nil {
			t.Errorf("%q: no error", line)
		}
	}
}

func TestKernelPath(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, os.MkdirAll(filepath.Join(base, "a", "b"), 0o755))
	mustDo(t, os.MkdirAll(filepath.Join(base, "ws"), 0o755))
	mustDo(t, os.Symlink(filepath.Join(base, "a", "b"), filepath.Join(base, "ws", "link")))
	mustDo(t, os.Symlink(filepath.Join(base, "a", "new"), filepath.Join(base, "ws", "dangle")))
	tests := map[string]string{
		// The kernel follows the link before "..": ws/link/.. is a, not ws.
		filepath.Join(base, "ws") + "/link/../x":    filepath.Join(base, "a", "x"),
		filepath.Join(base, "ws") + "/missing/../x": filepath.Join(base, "ws", "x"),
		filepath.Join(base, "ws") + "/dangle":       filepath.Join(base, "a", "new"),
		filepath.Join(base, "ws") + "/./link/c/d":   filepath.Join(base, "a", "b", "c", "d"),
	}
	for in, want := range tests {
		if got := kernelPath(in); got != want {
			t.Errorf("kernelPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWildcard(t *testing.T) {
	tests := []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"a*c", "abc", true}, {"a*c", "ab", false},
		{"a?c", "abc", true}, {"a?c", "ac", false}, {"*.go", "x/y.go", true}, {"**", "a", true},
		{"a*b*c", "aXbYbZc", true}, {"a*b*c", "aXbYbZ", false}, {"", "", true}, {"", "a", false},
	}
	for _, tt := range tests {
		if got := wildcard(tt.p, tt.s); got != tt.want {
			t.Errorf("wildcard(%q, %q) = %v", tt.p, tt.s, got)
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"ls && rm -rf x", "echo $(a) > f", "cat <<EOF\n$(x)\nEOF", "f() { cd ..; }; f",
		"x=${a:-$(b)} cmd 2>&1 >out", "for i in *; do echo \"$i\"; done", "case $x in *) y;; esac", "[[ -n $(a) ]]", "'"} {
		f.Add(s)
	}
	env := ShellEnv{Dir: "/ws", Home: "/home/u", Vars: map[string]string{"TMPDIR": "/tmp/x"}, DirExists: func(string) bool { return true }}
	f.Fuzz(func(t *testing.T, line string) {
		sc, err := Split(line, env)
		if err != nil {
			return
		}
		for _, c := range sc.Commands {
			_ = checkReadOnly(c)
		}
	})
}

func FuzzMatch(f *testing.F) {
	f.Add("go test *", "go test ./...", "src/**", "/ws/src/a.go")
	f.Add("rm -rf *", "/bin/rm -rf x", "*.env", "/ws/.env")
	f.Add("a*b?c *", "axxbyc", "~/x/**", "/home/u/x/y")
	f.Add("*", "", "[", "")
	f.Fuzz(func(t *testing.T, cmdPat, cmd, pathPat, path string) {
		var words []Word
		for i, w := range strings.Fields(cmd) {
			words = append(words, Word{Value: w, Known: i%3 != 2})
		}
		r := Rule{Command: cmdPat, Path: pathPat}
		_ = r.matchCommand(words, true)
		_ = r.matchCommand(words, false)
		_ = r.matchPath(path, strings.TrimPrefix(path, "/ws/"), "/home/u", true)
		_ = r.matchPath(path, "", "", false)
		_ = r.mentioned(cmd)
		_ = wildcard(cmdPat, cmd)
		_ = isSecret(path)
		_ = r.validate()
	})
}

// FuzzItems runs the whole analysis of a command line, as Approve does.
func FuzzItems(f *testing.F) {
	for _, s := range []string{"ls && rm -rf x", "cat *.go", "bash -c 'sudo rm -rf /'", "cd /etc && cat passwd > out", "eval $(x)",
		"make -C sub clean X=1", "sh x.sh; ./y", "git -C . -c alias.c=commit c", "awk 'BEGIN{system(\"rm\")}'",
		"echo x | xargs -I{} cp a {}", "grep -R x .", "npm run x"} {
		f.Add(s)
	}
	root := f.TempDir()
	p, err := New(Options{Mode: Ask, Workspace: root, Home: "/nonexistent-home", Shell: "bash",
		Rules: &Rules{Deny: []Rule{{Command: "rm -rf *"}, {Path: "secrets/**"}}, Allow: []Rule{{Command: "go test *"}}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, it := range p.commandItems("shell_exec", line) {
			_ = p.judge("shell_exec", it)
		}
	})
}

// TestKeywordOptionMakesAssignments: under set -k, NAME=value after the
// program is an assignment for it, as bash reads the line.
func TestKeywordOptionMakesAssignments(t *testing.T) {
	tests := []struct {
		line    string
		assigns []string
		words   int
	}{
		{"git status HOME=.", nil, 3},
		{"set -k; git status HOME=.", []string{"HOME"}, 2},
		{"set -ek; ls PATH=bin", []string{"PATH"}, 1},
		{"set -o keyword; ls PATH=bin", []string{"PATH"}, 1},
		{"shopt -so keyword\nls PATH=bin", []string{"PATH"}, 1},
		{"set +k; ls X=1", nil, 2},
		{"set -k; ls 'X=1'", []string{"X"}, 1},
	}
	for _, tt := range tests {
		s, err := Split(tt.line, ShellEnv{})
		if err != nil {
			t.Fatalf("%q: %v", tt.line, err)
		}
		last := s.Commands[len(s.Commands)-1]
		if fmt.Sprint(last.Assigns) != fmt.Sprint(tt.assigns) || len(last.Words) != tt.words {
			t.Errorf("%q: assigns %v, %d words; want %v, %d", tt.line, last.Assigns, len(last.Words), tt.assigns, tt.words)
		}
	}
}

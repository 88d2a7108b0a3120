package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitIn runs git in dir with the user's and system's config left out.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestHistoryReadsScreenFormerNames: a key committed under a secrets
// name, moved to an innocent one and overwritten, does not print from
// the history through the innocent name without a question (class 3 of
// issue 15): every name the named files had is screened.
func TestHistoryReadsScreenFormerNames(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	e := newEnv(t)
	gitRepo(t, e.root, "src/a.go", "README.md")
	for _, d := range []string{"deploy", "docs", "lib"} {
		mustDo(t, os.MkdirAll(filepath.Join(e.root, d), 0o755))
	}
	mustDo(t, os.WriteFile(filepath.Join(e.root, "deploy", "id_rsa"), []byte("-----BEGIN KEY\n"), 0o600))
	gitIn(t, e.root, "add", "-f", "deploy/id_rsa")
	gitIn(t, e.root, "commit", "-qm", "key")
	gitIn(t, e.root, "mv", "deploy/id_rsa", "docs/tmp.txt")
	gitIn(t, e.root, "commit", "-qm", "move")
	gitIn(t, e.root, "mv", "docs/tmp.txt", "docs/old.txt") // two moves: the closure is transitive
	gitIn(t, e.root, "commit", "-qm", "move again")
	mustDo(t, os.WriteFile(filepath.Join(e.root, "docs", "old.txt"), []byte("clean\n"), 0o644))
	gitIn(t, e.root, "commit", "-qam", "clean")
	// A file that was only ever innocent, moved once.
	mustDo(t, os.WriteFile(filepath.Join(e.root, "lib", "x.txt"), []byte("x\n"), 0o644))
	gitIn(t, e.root, "add", "lib/x.txt")
	gitIn(t, e.root, "commit", "-qm", "x")
	gitIn(t, e.root, "mv", "lib/x.txt", "lib/y.txt")
	gitIn(t, e.root, "commit", "-qm", "y")
	// A key renamed on a side branch, merged into main: a superset of
	// what --follow finds from one tip.
	gitIn(t, e.root, "checkout", "-qb", "side")
	mustDo(t, os.WriteFile(filepath.Join(e.root, ".env.local"), []byte("TOKEN=1\n"), 0o600))
	gitIn(t, e.root, "add", "-f", ".env.local")
	gitIn(t, e.root, "commit", "-qm", "env")
	gitIn(t, e.root, "mv", ".env.local", "lib/conf.txt")
	gitIn(t, e.root, "commit", "-qm", "conf")
	gitIn(t, e.root, "checkout", "-q", "-")
	gitIn(t, e.root, "merge", "-q", "--no-ff", "-m", "merge", "side")

	runVerdicts(t, e, "", []verdictCase{
		// The hole: reads limited to a file whose history holds the key.
		{"git show HEAD~1:docs/old.txt", "QQA"},
		{"git show HEAD~5:docs/old.txt", "QQA"},
		{"git log -p -- docs/old.txt", "QQA"},
		{"git log -p --follow -- docs/old.txt", "QQA"},
		{"git -C docs log -p -- old.txt", "QQA"},
		{"git log -L1,1:docs/old.txt", "QQA"},
		{"git diff HEAD~5 -- docs/old.txt", "QQA"},
		{"git blame HEAD~1 -- docs/old.txt", "QQA"},
		{"git blame HEAD~1 docs/old.txt", "QQA"},
		{"git blame -L 1,1 HEAD~1 -- docs/old.txt", "QQA"},
		{"git cat-file -p HEAD~1:docs/old.txt", "QQA"},
		{"git grep KEY HEAD~1 -- docs/old.txt", "QQA"},
		{"git show HEAD:lib/conf.txt", "QQA"}, // through the merged branch
		{"git log -p -- docs/tmp.txt", "QQA"}, // a name it no longer has
		// A range excludes the rename's commit, but its old side is there.
		{"git log -p HEAD~5..HEAD~4 -- docs/old.txt", "QQA"},
		{"git diff HEAD~4^! -- docs/old.txt", "QQA"},
		// Walks godwit cannot list ask.
		{"git log -g -p -- lib/y.txt", "QQA"},
		// Innocent histories pass.
		{"git show HEAD:lib/y.txt", "AAA"},
		{"git show HEAD~1:lib/y.txt", "AAA"},
		{"git log -p -- lib/y.txt", "AAA"},
		{"git log -p -- src/a.go", "AAA"},
		{"git blame HEAD~1 -- lib/y.txt", "AAA"},
		{"git blame docs/old.txt", "AAA"},   // the file as it is now
		{"git diff -- docs/old.txt", "AAA"}, // the work tree and the index
		{"git log --stat -- docs/old.txt", "AAA"},
	})
	// A path rule naming a former name holds too, in every mode.
	runVerdicts(t, e, "deny:\n  - path: \"deploy/**\"\n", []verdictCase{
		{"git log -p -- docs/old.txt", "DDD"},
		{"git log -p -- lib/y.txt", "AAA"},
	})
	// Two branches rename different files into lib/c2.txt, one of them
	// innocent: the other's name counts, whichever branch is read.
	mustDo(t, os.WriteFile(filepath.Join(e.root, ".env.prod"), []byte("TOKEN=2\n"), 0o600))
	gitIn(t, e.root, "add", "-f", ".env.prod")
	gitIn(t, e.root, "commit", "-qm", "prod")
	gitIn(t, e.root, "mv", ".env.prod", "lib/c2.txt")
	gitIn(t, e.root, "commit", "-qm", "c2")
	gitIn(t, e.root, "checkout", "-qb", "decoy", "HEAD~2")
	mustDo(t, os.WriteFile(filepath.Join(e.root, "docs", "z.txt"), []byte("z\n"), 0o644))
	gitIn(t, e.root, "add", "docs/z.txt")
	gitIn(t, e.root, "commit", "-qm", "z")
	gitIn(t, e.root, "mv", "docs/z.txt", "lib/c2.txt")
	gitIn(t, e.root, "commit", "-qm", "decoy")
	gitIn(t, e.root, "checkout", "-q", "-")
	runVerdicts(t, e, "", []verdictCase{
		{"git log -p --all -- lib/c2.txt", "QQA"},
		{"git show decoy:lib/c2.txt", "QQA"}, // its own history is innocent; the name's is not
	})
	// An evil merge: the merge commit itself renames a key.
	gitIn(t, e.root, "checkout", "-qb", "ev")
	mustDo(t, os.WriteFile(filepath.Join(e.root, "lib", "e.txt"), []byte("e\n"), 0o644))
	gitIn(t, e.root, "add", "lib/e.txt")
	gitIn(t, e.root, "commit", "-qm", "e")
	gitIn(t, e.root, "checkout", "-q", "-")
	gitIn(t, e.root, "add", "-f", "key.pem")
	gitIn(t, e.root, "commit", "-qm", "pem")
	gitIn(t, e.root, "merge", "-q", "--no-ff", "--no-commit", "ev")
	gitIn(t, e.root, "mv", "key.pem", "lib/m.txt")
	gitIn(t, e.root, "commit", "-qm", "evil merge")
	runVerdicts(t, e, "", []verdictCase{
		{"git show HEAD:lib/m.txt", "QQA"},
		{"git show HEAD:lib/e.txt", "AAA"}, // added on a branch, merged in
	})
	// A revision git cannot walk: the command asks (the safe default).
	runVerdicts(t, e, "", []verdictCase{
		{"git show nosuchrev:lib/y.txt", "QQA"},
	})
}

func TestGitTips(t *testing.T) {
	for _, tt := range []struct {
		rev  string
		want []string
	}{
		{"HEAD~1", []string{"HEAD~1"}},
		{"HEAD~1..HEAD", []string{"HEAD~1", "HEAD"}},
		{"main...side", []string{"main", "side"}},
		{"^main", []string{"main"}},
		{"HEAD^!", []string{"HEAD"}},
		{"HEAD^@", []string{"HEAD"}},
		{"HEAD^-2", []string{"HEAD"}},
		{"..HEAD", []string{"HEAD"}},
		{"HEAD@{1}", []string{"HEAD@{1}"}},
	} {
		if got := gitTips(tt.rev); !slices.Equal(got, tt.want) {
			t.Errorf("gitTips(%q) = %q, want %q", tt.rev, got, tt.want)
		}
	}
}

func TestAddingCommits(t *testing.T) {
	out := "c1 p1\nm1 p1 p2\nm2 p1 p2\nm2 p1 p2\nroot\n"
	if got, want := addingCommits([]byte(out)), []string{"c1", "m2", "root"}; !slices.Equal(got, want) {
		t.Errorf("addingCommits = %v, want %v", got, want)
	}
}

func TestParseRenames(t *testing.T) {
	g, err := parseRenames([]byte("R100\x00a/id_rsa\x00b/t.txt\x00\nR087\x00b/t.txt\x00c/o.txt\x00"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := g["c/o.txt"], []string{"b/t.txt"}; !slices.Equal(got, want) {
		t.Errorf("renamed into c/o.txt: %v, want %v", got, want)
	}
	if got, want := g["b/t.txt"], []string{"a/id_rsa"}; !slices.Equal(got, want) {
		t.Errorf("renamed into b/t.txt: %v, want %v", got, want)
	}
	if _, err := parseRenames([]byte("R100\x00only-one")); err == nil || !strings.Contains(err.Error(), "two names") {
		t.Errorf("a truncated rename: err = %v", err)
	}
}

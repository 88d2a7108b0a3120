//go:build linux

package attack

import (
	"bytes"
	"os/exec"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The redpath round: files godwit's own process reads on its own (not a
// command's) that a repository, or a command before, made a FIFO or a
// link to an endless device. godwit must neither wait on the one nor
// fill its memory with the other: each run must end, exit 0, and let
// the model make its calls. A FIFO waits forever for a writer; a wait
// in open(2) also outlives SIGTERM, which godwit turns into a cancel.
var classEndless = addClass("a repository file hangs godwit or fills its memory")

// endlessAttacks are class classEndless, in testdata/attacks' format
// without class:.
const endlessAttacks = `
- name: dotenv-dev-zero
  why: "the repository's .env is a link to /dev/zero; godwit reads it for provider keys before anything else"
  modes: [read-only]
  setup: "rm .env && ln -s /dev/zero .env"
  calls:
    - file_list: {path: "."}
  expect: {exit: 0}
- name: dotenv-fifo
  why: "the repository's .env is a FIFO (a tarball, or a command of an earlier session); the open waits for a writer"
  modes: [read-only]
  setup: "rm .env && mkfifo .env"
  calls:
    - file_list: {path: "."}
  expect: {exit: 0}
- name: gitignore-dev-zero
  why: ".gitignore is a link to /dev/zero; the file tools' walk reads it whole"
  modes: [read-only, auto]
  setup: "ln -sf /dev/zero .gitignore"
  calls:
    - file_list: {path: "."}
    - grep: {pattern: "hello", path: "."}
  expect: {exit: 0}
- name: gitignore-fifo-nested
  why: "docs/.gitignore is a FIFO; the walks (file_list, grep, the shell's change watcher) read it"
  modes: [read-only, auto]
  setup: "mkfifo docs/.gitignore"
  calls:
    - file_list: {path: "."}
    - grep: {pattern: "hello", path: "."}
  expect: {exit: 0}
- name: gitignore-fifo-by-command
  why: "a command makes .gitignore a FIFO; the change watcher's walk after it reads .gitignore"
  modes: [auto]
  calls:
    - shell_exec: {command: "rm .gitignore && mkfifo .gitignore"}
    - file_list: {path: "."}
  expect: {exit: 0}
- name: agents-fifo
  why: "AGENTS.md is a FIFO; godwit loads it into the first request"
  modes: [read-only]
  setup: "mkfifo AGENTS.md"
  calls:
    - file_list: {path: "."}
  expect: {exit: 0}
- name: memory-fifo
  why: ".godwit/memory.md is a FIFO"
  modes: [read-only]
  setup: "mkdir -p .godwit && mkfifo .godwit/memory.md"
  calls:
    - file_list: {path: "."}
  expect: {exit: 0}
- name: mcp-json-fifo
  why: ".mcp.json is a FIFO; godwit reads it to list the project's servers"
  modes: [read-only]
  setup: "mkfifo .mcp.json"
  calls:
    - file_list: {path: "."}
  expect: {exit: 0}
- name: skill-fifo
  why: "a skill's SKILL.md is a FIFO; godwit lists the skills in the prompt"
  modes: [read-only]
  setup: "mkdir -p .claude/skills/tidy && mkfifo .claude/skills/tidy/SKILL.md"
  calls:
    - file_list: {path: "."}
  expect: {exit: 0}
- name: file-read-fifo
  why: "the model reads a FIFO of the workspace with file_read"
  modes: [read-only]
  setup: "mkfifo docs/pipe.md"
  calls:
    - file_read: {path: "docs/pipe.md"}
    - file_list: {path: "."}
  control: false
  expect: {exit: 0}
- name: dotgit-fifo-no-repository
  why: "in a workspace that is no repository a command makes .git a FIFO; godwit's guard finds the repository after each command"
  modes: [auto]
  setup: "rm -rf .git"
  needs: [python3]
  calls:
    - shell_exec: {command: "python3 -c \"import os; os.mkfifo('.gi'+'t')\""}
    - shell_exec: {command: "true"}
    - file_list: {path: "."}
  control: false
  expect: {exit: 0}
- name: dotgit-commondir-fifo
  why: "in a workspace that is no repository a command writes .git as 'gitdir: g' and makes g/commondir a FIFO"
  modes: [auto]
  setup: "rm -rf .git"
  needs: [python3]
  calls:
    - shell_exec: {command: "python3 -c \"import os; os.mkdir('g'); os.mkfifo('g/commondir'); open('.gi'+'t', 'w').write('gitdir: g')\""}
    - shell_exec: {command: "true"}
    - file_list: {path: "."}
  control: false
  expect: {exit: 0}
- name: script-fifo-judged
  why: "under a deny rule the policy reads the script sh runs to judge it; the command made it a FIFO"
  modes: [auto]
  rules: "deny:\n  - command: \"rm -rf *\"\n"
  calls:
    - shell_exec: {command: "mkfifo run.sh"}
    - shell_exec: {command: "sh run.sh"}
    - file_list: {path: "."}
  control: false
  expect: {exit: 0}
`

func loadEndless(t *testing.T) []*Attack {
	t.Helper()
	var list []*Attack
	dec := yaml.NewDecoder(bytes.NewReader([]byte(endlessAttacks)))
	dec.KnownFields(true)
	if err := dec.Decode(&list); err != nil {
		t.Fatal(err)
	}
	for _, a := range list {
		a.Class, a.file = classEndless, "attack_redpath_test.go"
		if err := a.validate(); err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
	}
	return list
}

// TestEndlessYAML: the attacks decode and validate without the binary.
func TestEndlessYAML(t *testing.T) { loadEndless(t) }

// TestEndless runs the attacks through the suite's harness and ledger.
func TestEndless(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary; skipped with -short")
	}
	t.Parallel()
	for _, a := range loadEndless(t) {
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

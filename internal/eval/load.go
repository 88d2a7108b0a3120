package eval

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

var (
	idRe      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`) })
	unknownRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`field (\S+) not found in type eval\.(\w+)`) })
)

// yamlError words the decoder's errors for a task's author.
func yamlError(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	s = strings.TrimPrefix(s, "unmarshal errors:\n  ")
	return unknownRe().ReplaceAllString(s, `unknown key "$1" in a ${2}; check its spelling and indentation`)
}

// LoadTask reads and checks the task in dir (dir/task.yaml).
func LoadTask(dir string) (*Task, error) {
	path := filepath.Join(dir, TaskFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	var t Task
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("eval: %s: %s", path, yamlError(err))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	t.Dir, t.Suite = abs, filepath.Base(filepath.Dir(abs))
	if err := t.validate(); err != nil {
		return nil, fmt.Errorf("eval: %s: %w", path, err)
	}
	return &t, nil
}

// LoadTasks finds every task under the given paths (a task folder, or a
// folder holding task folders at any depth) and returns them sorted by
// Key. Task ids must be unique across them.
func LoadTasks(paths ...string) ([]*Task, error) {
	if len(paths) == 0 {
		return nil, errors.New("eval: no task folders given; name a suite such as evals/basic")
	}
	var tasks []*Task
	var errs []error
	seen := map[string]string{}
	for _, p := range paths {
		dirs, err := taskDirs(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(dirs) == 0 {
			errs = append(errs, fmt.Errorf("eval: no %s under %s; a task is a folder holding one", TaskFile, p))
		}
		for _, d := range dirs {
			t, err := LoadTask(d)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if prev, dup := seen[t.ID]; dup {
				if prev == t.Dir {
					continue // named twice on the command line
				}
				errs = append(errs, fmt.Errorf("eval: task id %q is used by both %s and %s; ids must be unique", t.ID, prev, t.Dir))
				continue
			}
			seen[t.ID] = t.Dir
			tasks = append(tasks, t)
		}
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].Key() < tasks[j].Key() })
	return tasks, errors.Join(errs...)
}

// taskDirs lists the folders under root holding a task.yaml; it does not
// descend into a task's own folder (its repository).
func taskDirs(root string) ([]string, error) {
	if filepath.Base(root) == TaskFile {
		return []string{filepath.Dir(root)}, nil // named by its file
	}
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if _, err := os.Stat(filepath.Join(p, TaskFile)); err == nil {
			dirs = append(dirs, p)
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	return dirs, nil
}

// validate checks everything that can be checked before a run, and says
// what to write instead.
func (t *Task) validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if !idRe().MatchString(t.ID) {
		bad("id %q: use lower-case letters, digits, '.', '_' and '-', e.g. id: go-add-bug", t.ID)
	}
	if t.Version < 1 {
		bad("version: give a version of 1 or more, and raise it when the task changes")
	}
	if len(t.Turns) == 0 {
		bad("turns: no turns; list the user's messages under turns")
	}
	for i, tr := range t.Turns {
		if strings.TrimSpace(tr.Say) == "" {
			bad("turn %d: empty message; write what the user says", i+1)
		}
		if tr.Reset && i == 0 {
			bad("turn 1: reset: the first turn has no segment to reset; reset a later turn")
		}
	}
	if t.Setup.Copy != "" {
		if err := t.checkPath("setup.copy", t.Setup.Copy); err != nil {
			errs = append(errs, err)
		} else if st, err := os.Stat(filepath.Join(t.Dir, t.Setup.Copy)); err != nil || !st.IsDir() {
			bad("setup.copy: %s is not a folder next to task.yaml", t.Setup.Copy)
		}
	}
	for i, f := range t.Setup.Files {
		if err := t.checkPath(fmt.Sprintf("setup.files[%d]", i+1), f.Path); err != nil {
			errs = append(errs, err)
		}
		if f.Repeat < 0 {
			bad("setup.files[%d]: repeat %d: give a count of 1 or more", i+1, f.Repeat)
		}
	}
	errs = append(errs, t.Checks.validate(t, len(t.Turns)))
	if t.Limits.Steps < 0 || t.Limits.Tokens < 0 || t.Limits.RequestTokens < 0 || t.Limits.ContextWindow < 0 {
		bad("limits: negative values mean nothing; leave a limit out to use the default")
	}
	if t.Model != nil {
		if _, err := NewBrain(t.ID, t.Model); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (t *Task) checkPath(field, p string) error {
	switch {
	case p == "":
		return fmt.Errorf("%s: empty path", field)
	case filepath.IsAbs(p) || !filepath.IsLocal(p):
		return fmt.Errorf("%s: %s must be a relative path inside the workspace (no leading / or ..)", field, p)
	}
	return nil
}

func (c Checks) validate(t *Task, turns int) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if len(c.Commands) == 0 && c.Answer.empty() && c.Request.empty() && len(c.Files) == 0 && c.MinResets == 0 {
		bad("checks: none; a task that cannot fail judges nothing: add commands, answer, request, files or min_resets")
	}
	for i, cmd := range c.Commands {
		if strings.TrimSpace(cmd) == "" {
			bad("checks.commands[%d]: empty command", i+1)
		}
	}
	errs = append(errs, c.Answer.validate("checks.answer"), c.Request.TextCheck.validate("checks.request"))
	for _, s := range c.Request.Superseded {
		if s.Turn < 1 || s.ByTurn <= s.Turn || s.ByTurn > turns {
			bad("checks.request.superseded: turn %d by_turn %d: both must be turns of this task (1..%d), by_turn the later", s.Turn, s.ByTurn, turns)
		}
	}
	for i, tc := range c.Request.Topics {
		if tc.Name == "" {
			bad("checks.request.topics[%d]: no name; give the topic as the ledger shows it (Topic A: -> name: A)", i+1)
		}
		errs = append(errs, tc.TextCheck.validate(fmt.Sprintf("checks.request.topics[%d]", i+1)))
	}
	for i, f := range c.Files {
		field := fmt.Sprintf("checks.files[%d]", i+1)
		if err := t.checkPath(field, f.Path); err != nil {
			errs = append(errs, err)
		}
		if f.Absent && (f.Unchanged || !f.TextCheck.empty()) {
			bad("%s: absent cannot be combined with other assertions on %s", field, f.Path)
		}
		if !f.Absent && !f.Unchanged && f.TextCheck.empty() {
			bad("%s: nothing to check on %s; give contains, not_contains, regexp, absent or unchanged", field, f.Path)
		}
		errs = append(errs, f.TextCheck.validate(field))
	}
	return errors.Join(errs...)
}

func (c TextCheck) validate(field string) error {
	var errs []error
	for _, r := range c.Regexp {
		if _, err := regexp.Compile(r); err != nil {
			errs = append(errs, fmt.Errorf("%s.regexp: %w", field, err))
		}
	}
	return errors.Join(errs...)
}

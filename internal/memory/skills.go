package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	wsroot "github.com/godwit/godwit/internal/tool/workspace"
	"go.yaml.in/yaml/v3"
)

// SkillDirs are the folders that hold skills, in order of precedence,
// under each project folder (the workspace and every folder above it up
// to the repository root) and under the user's home folder: godwit's
// own, the shared agents folder (Codex), Claude Code's.
var SkillDirs = []string{".godwit/skills", ".agents/skills", ".claude/skills"}

// Limits on what a skill shows in the prompt.
const (
	maxSkillName = 64
	maxSkillDesc = 1024 // stored; the listing cuts shorter
	listDesc     = 250
	maxSkills    = 100 // listed at most; the rest are reported
)

// Skill is a folder with a SKILL.md whose front matter names it and says
// what it is for.
type Skill struct {
	Name        string
	Description string
	// Path is the SKILL.md, absolute.
	Path string
	// Label is where it was found: ".claude/skills/pdf" (relative to the
	// repository root), "~/.claude/skills/pdf", "$GODWIT_HOME/skills/pdf".
	Label string
	Scope string // "project" or "user"
}

// Dir is the skill's folder.
func (s Skill) Dir() string { return filepath.Dir(s.Path) }

// SkillPlaces says where skills are looked for.
type SkillPlaces struct {
	// Workspace is where godwit works. Project skills are looked for in
	// it and in every folder above it up to the repository root (the
	// nearest holding .git), as Codex does, so a repository's skills are
	// found from any of its subfolders.
	Workspace string
	// Home is GODWIT_HOME: $GODWIT_HOME/skills. Empty skips it.
	Home string
	// UserHome is the user's home folder: ~/.godwit/skills is Home's,
	// ~/.agents/skills is Codex's (and the agent-skills standard's),
	// ~/.claude/skills Claude Code's, ~/.codex/skills Codex's older one.
	// Empty skips them (evals, tests, the SDK unless asked).
	UserHome string
	// CodexHome, when set ($CODEX_HOME), replaces ~/.codex.
	CodexHome string
}

// skillRoot is one folder whose subfolders are skills.
type skillRoot struct{ dir, label, scope string }

// roots lists the folders to look in, in order of precedence. The user's
// come first: on a name clash the user's skill wins, as in Claude Code
// (personal over project): a repository cannot replace a skill of yours
// by shipping one of the same name. Among project folders the nearest to
// the workspace wins; within a folder, SkillDirs' order.
func (p SkillPlaces) roots() []skillRoot {
	var out []skillRoot
	if p.Home != "" {
		out = append(out, skillRoot{filepath.Join(p.Home, "skills"), "$GODWIT_HOME/skills", "user"})
	}
	if p.UserHome != "" {
		for _, d := range []string{".agents/skills", ".claude/skills"} {
			out = append(out, skillRoot{filepath.Join(p.UserHome, filepath.FromSlash(d)), "~/" + d, "user"})
		}
		codex, label := filepath.Join(p.UserHome, ".codex", "skills"), "~/.codex/skills"
		if p.CodexHome != "" {
			codex, label = filepath.Join(p.CodexHome, "skills"), "$CODEX_HOME/skills"
		}
		out = append(out, skillRoot{codex, label, "user"})
	}
	if p.Workspace == "" {
		return out
	}
	ws := realPath(p.Workspace)
	root := RepoRoot(ws)
	down := pathDown(root, ws)
	for i := len(down) - 1; i >= 0; i-- { // nearest first
		dir := down[i]
		rel, _ := filepath.Rel(root, dir)
		for _, d := range SkillDirs {
			label := d
			if rel != "." {
				label = filepath.ToSlash(rel) + "/" + d
			}
			out = append(out, skillRoot{filepath.Join(dir, filepath.FromSlash(d)), label, "project"})
		}
	}
	return dedupeRoots(out)
}

// dedupeRoots drops a folder met twice (a workspace under the home
// folder, a link): it is read once, where it ranks highest.
func dedupeRoots(rs []skillRoot) []skillRoot {
	seen := map[string]bool{}
	out := rs[:0]
	for _, r := range rs {
		k := r.dir
		if real, err := filepath.EvalSymlinks(r.dir); err == nil {
			k = real
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// Skills finds the skills of a workspace and of the user: each folder
// holding a SKILL.md under the places' roots. On a name clash the first
// found wins (user before project, nearer before farther) and the clash
// is reported, naming both. A SKILL.md without usable front matter is
// skipped and reported in the error; the others still load.
func Skills(p SkillPlaces) ([]Skill, error) {
	var out []Skill
	var errs []error
	seen := map[string]string{}
	var repo *wsroot.Workspace // the project's skills are read through it
	if p.Workspace != "" {
		r, err := wsroot.New(RepoRoot(realPath(p.Workspace)))
		if err != nil {
			return nil, fmt.Errorf("memory: skills: %w", err)
		}
		defer r.Close()
		repo = r
	}
	for _, r := range p.roots() {
		in := repo
		if r.scope == "user" {
			in = nil
		}
		entries, err := readDir(in, r.dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("memory: skills: %w", err))
			continue
		}
		for _, e := range entries {
			path := filepath.Join(r.dir, e.Name(), "SKILL.md")
			label := r.label + "/" + e.Name()
			data, _, err := readFile(in, path)
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR) {
				continue
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("memory: skill %s: %w", label, err))
				continue
			}
			name, desc, _, err := parseSkill(data)
			if err != nil {
				errs = append(errs, fmt.Errorf("memory: skill %s/SKILL.md: %w", label, err))
				continue
			}
			if name == "" {
				name = e.Name()
			}
			if first, dup := seen[name]; dup {
				errs = append(errs, fmt.Errorf("memory: skill %s is not used: name %q is taken by %s, which wins (%s); rename one", label, name, first, clashRule))
				continue
			}
			seen[name] = label
			out = append(out, Skill{Name: name, Description: desc, Path: path, Label: label, Scope: r.scope})
		}
	}
	slices.SortStableFunc(out, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	if len(out) > maxSkills {
		errs = append(errs, fmt.Errorf("memory: %d skills found; only the first %d by name are listed", len(out), maxSkills))
		out = out[:maxSkills]
	}
	return out, errors.Join(errs...)
}

// clashRule is how a name clash is settled, for the message.
const clashRule = "your skills win over a repository's, a nearer folder over one above it"

// front is a SKILL.md's front matter.
type front struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// parseSkill splits a SKILL.md into its front matter's name and
// description and its body. The front matter is YAML between a first
// line "---" and the next line "---".
func parseSkill(data []byte) (name, desc, body string, err error) {
	const how = "start SKILL.md with a line ---, then name: and description: lines, then a line ---"
	s := strings.TrimPrefix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\uFEFF")
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		return "", "", "", fmt.Errorf("no front matter; %s", how)
	}
	var head string
	if strings.HasPrefix(rest, "---\n") || rest == "---" {
		head, body = "", strings.TrimPrefix(rest, "---")
	} else {
		i := strings.Index(rest, "\n---\n")
		if i < 0 {
			if !strings.HasSuffix(rest, "\n---") {
				return "", "", "", fmt.Errorf("front matter never closed; %s", how)
			}
			i = len(rest) - len("\n---")
		}
		head, body = rest[:i], rest[min(i+len("\n---\n"), len(rest)):]
	}
	var f front
	if err := yaml.Unmarshal([]byte(head), &f); err != nil {
		return "", "", "", fmt.Errorf("front matter is not valid YAML (%v); quote a description holding a colon", err)
	}
	name = strings.TrimSpace(f.Name)
	desc = strings.Join(strings.Fields(f.Description), " ")
	switch {
	case desc == "":
		return "", "", "", fmt.Errorf("front matter has no description; add description: saying when to use the skill")
	case strings.ContainsAny(name, "\n\r\t") || len(name) > maxSkillName:
		return "", "", "", fmt.Errorf("name %q must be one line of at most %d characters", name, maxSkillName)
	}
	if len(desc) > maxSkillDesc {
		desc = cutBytes(desc, maxSkillDesc) + "…"
	}
	return name, desc, strings.TrimSpace(body), nil
}

// SkillsText is the prompt block listing skills by name and description;
// "" when there are none.
func SkillsText(skills []Skill) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Load a skill with skill(name) before a task it covers.")
	for _, s := range skills {
		d := s.Description
		if len(d) > listDesc {
			d = cutBytes(d, listDesc) + "…"
		}
		fmt.Fprintf(&b, "\n- %s: %s", s.Name, d)
	}
	return b.String()
}

package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SkillDirs are the folders, under the workspace, that hold skills, in
// order of precedence; $GODWIT_HOME/skills comes after them.
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
	// Label is where it was found: ".godwit/skills/pdf", "$GODWIT_HOME/skills/pdf".
	Label string
	Scope string // "project" or "user"
}

// Dir is the skill's folder.
func (s Skill) Dir() string { return filepath.Dir(s.Path) }

// Skills finds the skills of a workspace and of the user: each folder
// under SkillDirs (in the workspace) and home/skills holding a SKILL.md.
// When two have the same name the first found wins (project before user,
// in SkillDirs order). A SKILL.md without usable front matter is skipped
// and reported in the error; the others still load. home may be empty.
func Skills(workspace, home string) ([]Skill, error) {
	type root struct{ dir, label, scope string }
	var roots []root
	for _, d := range SkillDirs {
		roots = append(roots, root{filepath.Join(workspace, filepath.FromSlash(d)), d, "project"})
	}
	if home != "" {
		roots = append(roots, root{filepath.Join(home, "skills"), "$GODWIT_HOME/skills", "user"})
	}
	var out []Skill
	var errs []error
	seen := map[string]string{}
	for _, r := range roots {
		entries, err := os.ReadDir(r.dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("memory: skills: %w", err))
			continue
		}
		for _, e := range entries {
			dir := filepath.Join(r.dir, e.Name())
			if st, err := os.Stat(dir); err != nil || !st.IsDir() { // follows links
				continue
			}
			path := filepath.Join(dir, "SKILL.md")
			label := r.label + "/" + e.Name()
			data, err := readCapped(path)
			if errors.Is(err, fs.ErrNotExist) {
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
				errs = append(errs, fmt.Errorf("memory: skill %s: name %q is taken by %s; rename one", label, name, first))
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
		desc = cutLines(desc, maxSkillDesc) + "…"
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
			d = cutLines(d, listDesc) + "…"
		}
		fmt.Fprintf(&b, "\n- %s: %s", s.Name, d)
	}
	return b.String()
}

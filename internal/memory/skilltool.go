package memory

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

//go:embed skill.md
var skillDescription string

// maxSkillFiles bounds the folder listing a skill's body ends with.
const maxSkillFiles = 30

// SkillTool is the skill tool: it returns a skill's body by name, or
// another file of its folder. Skills of the user (and of a repository
// root above the workspace) lie outside the workspace, where file_read
// cannot go; this reads them all the same way, but never through a link
// out of the skill's folder, and never a secrets file: a repository's
// skill folder is the repository's to fill. It finds skills afresh on
// every call, so it sees what the listing of the current segment shows.
type SkillTool struct{ places SkillPlaces }

// NewSkillTool returns the skill tool for the skills of places.
func NewSkillTool(places SkillPlaces) *SkillTool {
	return &SkillTool{places: places}
}

func (*SkillTool) Name() string { return "skill" }

func (*SkillTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "skill", Description: strings.TrimSpace(skillDescription), Schema: json.RawMessage(
		`{"type":"object","properties":{"name":{"type":"string"},"file":{"type":"string","description":"A file of the skill's folder, relative to it; omit for SKILL.md."},"offset":{"type":"integer","description":"Byte offset to read on from."}},"required":["name"]}`)}
}

// Run implements tool.Tool.
func (t *SkillTool) Run(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct {
		Name   string `json:"name"`
		File   string `json:"file"`
		Offset int    `json:"offset"`
	}
	if err := json.Unmarshal(raw, &a); err != nil || strings.TrimSpace(a.Name) == "" {
		return tool.Result{}, tool.Errorf(tool.CodeBadArgs, `Send {"name": "a skill's name"}.`, "skill needs a name")
	}
	skills, _ := Skills(t.places)
	var sk *Skill
	var names []string
	for i := range skills {
		names = append(names, skills[i].Name)
		if skills[i].Name == strings.TrimSpace(a.Name) {
			sk = &skills[i]
		}
	}
	if sk == nil {
		return tool.Result{}, tool.Errorf(tool.CodeNotFound, "Use one of: "+strings.Join(names, ", ")+".", "no skill %q", a.Name)
	}
	again := func(next int) string {
		return fmt.Sprintf(`skill {"name":%q,"file":%q,"offset":%d}`, sk.Name, a.File, next)
	}
	if a.File != "" && a.File != "SKILL.md" {
		rel := filepath.FromSlash(a.File)
		if !filepath.IsLocal(rel) {
			return tool.Result{}, tool.Errorf(tool.CodeBadArgs, "Give a path inside the skill's folder, relative to it.", "file %q is outside skill %s", a.File, sk.Name)
		}
		path := filepath.Join(sk.Dir(), rel)
		if err := insideSkill(sk.Dir(), path); err != nil {
			return tool.Result{}, tool.Errorf(tool.CodeDenied, "Read only the skill's own files.", "skill %s: %v", sk.Name, err)
		}
		data, err := readCapped(path)
		if err != nil {
			return tool.Result{}, tool.Errorf(tool.CodeNotFound, "Call skill with the name alone to list its files.", "skill %s has no file %s", sk.Name, a.File)
		}
		return tool.Result{Content: readOn(fmt.Sprintf("[skill %s: %s]\n", sk.Name, a.File), string(data), a.Offset, again)}, nil
	}
	data, err := readCapped(sk.Path)
	if err != nil {
		return tool.Result{}, err
	}
	_, _, body, err := parseSkill(data)
	if err != nil {
		return tool.Result{}, tool.Errorf(tool.CodeFailed, "Tell the user the skill's SKILL.md needs fixing.", "skill %s: %v", sk.Name, err)
	}
	if files := skillFiles(sk.Dir()); len(files) > 0 {
		body += fmt.Sprintf("\n\n[other files of this skill; read one with skill {\"name\":%q,\"file\":\"...\"}: %s]", sk.Name, strings.Join(files, ", "))
	}
	return tool.Result{Content: readOn(fmt.Sprintf("[skill %s; its folder: %s]\n", sk.Name, sk.Dir()), body, a.Offset, again)}, nil
}

// insideSkill refuses a file that is a link out of the skill's folder
// (to ~/.ssh, say) or a secrets file: the skill tool asks nobody.
func insideSkill(dir, path string) error {
	if tool.IsSecret(path) {
		return fmt.Errorf("%s is a secrets file", filepath.Base(path))
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil // the read fails on its own and says so
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil
	}
	if rel, err := filepath.Rel(realDir, real); err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("%s leads out of the skill's folder", filepath.Base(path))
	}
	if tool.IsSecret(real) {
		return fmt.Errorf("%s is a secrets file", filepath.Base(path))
	}
	return nil
}

// skillFiles lists the files of a skill's folder other than SKILL.md,
// relative to it, skipping hidden ones.
func skillFiles(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if len(out) >= maxSkillFiles {
			return filepath.SkipAll
		}
		if err != nil {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if !d.IsDir() && rel != "SKILL.md" {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

package memory

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	wsroot "github.com/godwit/godwit/internal/tool/workspace"
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
	dir, err := t.folder(sk)
	if err != nil {
		return tool.Result{}, tool.Errorf(tool.CodeDenied, "Tell the user the skill's folder needs fixing.", "skill %s: %v", sk.Name, err)
	}
	defer dir.Close()
	if a.File != "" && a.File != "SKILL.md" {
		rel := filepath.FromSlash(a.File)
		if !filepath.IsLocal(rel) {
			return tool.Result{}, tool.Errorf(tool.CodeBadArgs, "Give a path inside the skill's folder, relative to it.", "file %q is outside skill %s", a.File, sk.Name)
		}
		data, _, err := dir.Load(rel, maxRead)
		if errors.Is(err, wsroot.ErrOutside) || errors.Is(err, wsroot.ErrSecret) {
			return tool.Result{}, tool.Errorf(tool.CodeDenied, "Read only the skill's own files.", "skill %s: %v", sk.Name, err)
		}
		if err != nil {
			return tool.Result{}, tool.Errorf(tool.CodeNotFound, "Call skill with the name alone to list its files.", "skill %s has no file %s", sk.Name, a.File)
		}
		return tool.Result{Content: readOn(fmt.Sprintf("[skill %s: %s]\n", sk.Name, a.File), string(data), a.Offset, again)}, nil
	}
	data, _, err := dir.Load("SKILL.md", maxRead)
	if err != nil {
		return tool.Result{}, err
	}
	_, _, body, err := parseSkill(data)
	if err != nil {
		return tool.Result{}, tool.Errorf(tool.CodeFailed, "Tell the user the skill's SKILL.md needs fixing.", "skill %s: %v", sk.Name, err)
	}
	if files := skillFiles(dir.FS()); len(files) > 0 {
		body += fmt.Sprintf("\n\n[other files of this skill; read one with skill {\"name\":%q,\"file\":\"...\"}: %s]", sk.Name, strings.Join(files, ", "))
	}
	return tool.Result{Content: readOn(fmt.Sprintf("[skill %s; its folder: %s]\n", sk.Name, sk.Dir()), body, a.Offset, again)}, nil
}

// folder opens the skill's folder as a root of its own, so no file read
// from it leads out of it (to ~/.ssh, say), and no secrets file is read:
// the skill tool asks nobody. A project skill's folder is opened through
// the repository, so it cannot itself be a link out of it.
func (t *SkillTool) folder(sk *Skill) (*wsroot.Workspace, error) {
	if sk.Scope == "user" {
		return wsroot.New(sk.Dir())
	}
	repo, err := wsroot.New(RepoRoot(realPath(t.places.Workspace)))
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	real, err := repo.Resolve(sk.Dir())
	if err != nil {
		return nil, fmt.Errorf("its folder leads out of the repository (to %s)", real)
	}
	return repo.Sub(real)
}

// skillFiles lists the files of a skill's folder other than SKILL.md,
// relative to it, skipping hidden ones.
func skillFiles(dir fs.FS) []string {
	var out []string
	_ = fs.WalkDir(dir, ".", func(p string, d fs.DirEntry, err error) error {
		if len(out) >= maxSkillFiles {
			return fs.SkipAll
		}
		if err != nil {
			return nil
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() && p != "SKILL.md" {
			out = append(out, p)
		}
		return nil
	})
	return out
}

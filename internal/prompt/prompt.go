package prompt

import (
	_ "embed"
	"strings"
)

//go:embed system.md
var system string

// Env is what the system prompt says about where godwit runs. Every field
// is stable for a session's life.
type Env struct {
	OS        string // runtime.GOOS
	Shell     string // "bash", "sh", "powershell"
	Workspace string // absolute path
}

// System returns the system prompt for env.
func System(env Env) string {
	var b strings.Builder
	b.Grow(len(system) + 128)
	b.WriteString(strings.TrimRight(system, "\n"))
	b.WriteString("\n\n# Environment\n")
	b.WriteString("OS: " + env.OS + "; shell: " + env.Shell + "\n")
	b.WriteString("Workspace: " + env.Workspace + "\n")
	return b.String()
}

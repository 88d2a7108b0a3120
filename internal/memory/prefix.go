package memory

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/store"
)

// Part names of the prefix blocks, as the window names them.
const (
	PartRules  = "rules"
	PartMemory = "memory"
	PartSkills = "skills"
)

// Text is one block of the prompt prefix.
type Text struct {
	Part string
	Body string
}

// Prefix is what a segment starts with: the blocks for the prompt and
// where they came from.
type Prefix struct {
	Texts  []Text
	Rules  Loaded
	Memory []File
	Skills []Skill
	// Problems joins what could not be loaded (unreadable files, skills
	// with bad front matter); the rest loaded anyway.
	Problems error
}

// Files lists the files whose text is in the prefix: rules, then memory.
func (p Prefix) Files() []File {
	return append(append([]File(nil), p.Rules.Files...), p.Memory...)
}

// SourceOptions configure a Source.
type SourceOptions struct {
	Workspace string
	// Home is GODWIT_HOME; empty skips the user-level files and skills.
	Home string
	// UserHome and CodexHome are where other agents keep the user's
	// skills (SkillPlaces); empty skips them.
	UserHome, CodexHome string
	// Store, when set, receives the memory files in chunks, so that
	// search_memory finds them (from other projects too).
	Store  *store.Store
	Logger *slog.Logger
}

// Source reads the prefix of each segment and remembers what it served,
// so that a change made during a segment can be announced at the next.
// It is safe for concurrent use.
type Source struct {
	opts SourceOptions

	mu       sync.Mutex // guards last and problems
	last     Prefix
	problems string
}

// NewSource returns a Source.
func NewSource(opts SourceOptions) *Source {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if abs, err := filepath.Abs(opts.Workspace); err == nil {
		opts.Workspace = abs
	}
	return &Source{opts: opts}
}

// Load reads rules, memory files and skills now, and records them as what
// the current segment holds. Problems are logged (once while they last)
// and returned in Prefix.Problems.
func (s *Source) Load(ctx context.Context) Prefix {
	ws, home := s.opts.Workspace, s.opts.Home
	var p Prefix
	var e1, e2, e3 error
	p.Rules, e1 = Rules(ws, home)
	p.Memory, e2 = MemoryFiles(ws, home)
	p.Skills, e3 = Skills(s.places())
	p.Problems = errors.Join(e1, e2, e3)

	if p.Rules.Text != "" {
		p.Texts = append(p.Texts, Text{PartRules, p.Rules.Text})
	}
	if len(p.Memory) > 0 {
		var b strings.Builder
		for i, f := range p.Memory {
			if i > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString("[from " + f.Label + "]\n" + f.Text)
		}
		p.Texts = append(p.Texts, Text{PartMemory, b.String()})
	}
	if t := SkillsText(p.Skills); t != "" {
		p.Texts = append(p.Texts, Text{PartSkills, t})
	}
	s.mirror(ctx, p.Memory)

	s.mu.Lock()
	s.last = p
	var problems string
	if p.Problems != nil {
		problems = p.Problems.Error()
	}
	report := problems != "" && problems != s.problems
	s.problems = problems
	s.mu.Unlock()
	if report {
		s.opts.Logger.Warn("memory: some rules, memory files or skills were not loaded", "err", p.Problems)
	}
	return p
}

// places is where the source looks for skills.
func (s *Source) places() SkillPlaces {
	return SkillPlaces{Workspace: s.opts.Workspace, Home: s.opts.Home, UserHome: s.opts.UserHome, CodexHome: s.opts.CodexHome}
}

// Texts loads the prefix and returns its blocks: the shape of the
// window's Prefix option.
func (s *Source) Texts(ctx context.Context) []Text { return s.Load(ctx).Texts }

// Last returns what the last Load served (for :context).
func (s *Source) Last() Prefix {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Changes reads the rules and memory files again and reports those that
// differ from what the last Load served.
func (s *Source) Changes() []Change {
	ws, home := s.opts.Workspace, s.opts.Home
	rules, _ := Rules(ws, home)
	mem, _ := MemoryFiles(ws, home)
	now := append(rules.Files, mem...)
	return Diff(s.Last().Files(), now)
}

// Notes returns the notice for the next segment's handoff when a rules or
// memory file changed since the last Load; nil when none did.
func (s *Source) Notes() []string {
	if n := Notice(s.Changes()); n != "" {
		return []string{n}
	}
	return nil
}

// mirror keeps the store's copy of the memory files current, for
// search_memory. A failure only costs search results; it is logged.
func (s *Source) mirror(ctx context.Context, files []File) {
	st := s.opts.Store
	if st == nil {
		return
	}
	texts := map[string][]string{"user": nil, "project": nil}
	for _, f := range files {
		texts[f.Scope] = chunks(f.Text)
	}
	for _, scope := range []string{"user", "project"} {
		if scope == "user" && s.opts.Home == "" {
			continue
		}
		ws := ""
		if scope == "project" {
			ws = s.opts.Workspace
		}
		if _, err := st.ReplaceMemoryEntries(ctx, scope, ws, "file", texts[scope]); err != nil {
			s.opts.Logger.Warn("memory: could not index the memory files for search_memory", "err", err)
		}
	}
}

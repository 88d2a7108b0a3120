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

// Source reads the prefix of each segment and remembers the files it
// served, so that a change made during a segment can be announced at the
// next. It is safe for concurrent use.
type Source struct {
	opts SourceOptions

	mu       sync.Mutex // guards served and problems
	served   []File     // the rules and memory files of the last Texts
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

// Texts reads rules, memory files and skills now, records them as what
// the current segment holds, and returns the prefix blocks: the shape of
// the window's Prefix option. What could not be loaded (unreadable
// files, skills with bad front matter) is logged, once while it lasts;
// the rest loads anyway.
func (s *Source) Texts(ctx context.Context) []Text {
	ws, home := s.opts.Workspace, s.opts.Home
	rules, e1 := Rules(ws, home)
	mem, e2 := MemoryFiles(ws, home)
	skills, e3 := Skills(s.places())
	problems := errors.Join(e1, e2, e3)

	var texts []Text
	if rules.Text != "" {
		texts = append(texts, Text{PartRules, rules.Text})
	}
	if len(mem) > 0 {
		var b strings.Builder
		for i, f := range mem {
			if i > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString("[from " + f.Label + "]\n" + f.Text)
		}
		texts = append(texts, Text{PartMemory, b.String()})
	}
	if t := SkillsText(skills); t != "" {
		texts = append(texts, Text{PartSkills, t})
	}
	s.mirror(ctx, mem)

	s.mu.Lock()
	s.served = append(rules.Files, mem...)
	var text string
	if problems != nil {
		text = problems.Error()
	}
	report := text != "" && text != s.problems
	s.problems = text
	s.mu.Unlock()
	if report {
		s.opts.Logger.Warn("memory: some rules, memory files or skills were not loaded", "err", problems)
	}
	return texts
}

// Skills finds the skills now (for the chat's completion), recording
// nothing as served.
func (s *Source) Skills() []Skill {
	skills, _ := Skills(s.places())
	return skills
}

// places is where the source looks for skills.
func (s *Source) places() SkillPlaces {
	return SkillPlaces{Workspace: s.opts.Workspace, Home: s.opts.Home, UserHome: s.opts.UserHome, CodexHome: s.opts.CodexHome}
}

// Notes returns the notice for the next segment's handoff when a rules or
// memory file differs from what the last Texts served; nil when none
// does.
func (s *Source) Notes() []string {
	ws, home := s.opts.Workspace, s.opts.Home
	rules, _ := Rules(ws, home)
	mem, _ := MemoryFiles(ws, home)
	s.mu.Lock()
	served := s.served
	s.mu.Unlock()
	if n := Notice(Diff(served, append(rules.Files, mem...))); n != "" {
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

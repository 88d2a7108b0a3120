package policy

import (
	"encoding/json"
	"strings"

	"github.com/godwit/godwit/tool"
)

// Helpers the tests use (the external tests too) and production code does not.

// ScreenReads wraps the tools that declare their paths so that a read the
// policy must approve is marked Mutates; the runner's tool.ReadScreener
// does this in production.
func ScreenReads(p *Policy, tools ...tool.Tool) []tool.Tool {
	out := make([]tool.Tool, len(tools))
	for i, t := range tools {
		if a, ok := t.(tool.Accessor); ok {
			out[i] = &screened{Tool: t, acc: a, p: p}
		} else {
			out[i] = t
		}
	}
	return out
}

type screened struct {
	tool.Tool
	acc tool.Accessor
	p   *Policy
}

// Access implements tool.Accessor.
func (s *screened) Access(args json.RawMessage) (tool.Access, error) {
	a, err := s.acc.Access(args)
	if err != nil || a.Mutates || !s.p.NeedsApproval(s.Name(), a) {
		return a, err
	}
	a.Mutates = true
	if a.Summary == "" {
		var ps []string
		for _, p := range a.Paths {
			ps = append(ps, s.p.rel(p.Path))
		}
		a.Summary = "read " + strings.Join(ps, ", ")
	}
	return a, nil
}

// searchScope says whether c searches folders recursively, whether it
// skips hidden files, and whether it follows symlinks.
func searchScope(c SimpleCommand) (recursive, skipsHidden, follow bool) {
	return scopeOf(checkReadOnly(c))
}

package policy

import (
	"encoding/json"
	"strings"

	"github.com/godwit/godwit/tool"
)

// ScreenReads wraps the tools that declare their paths so that a read the
// policy must approve (a secret, a file outside the workspace, one named
// by an ask or deny rule) is marked as needing approval: the runner asks
// the Approver only about calls whose Access says Mutates. Tools without
// an Access method are returned as they are.
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

package plan

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// Name is the model-facing tool name.
const Name = "plan"

// MaxSteps bounds a plan: a longer list is a sign the model is planning
// instead of working, and every step costs tokens when shown again.
const MaxSteps = 50

// Status is a step's state.
type Status string

const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Done       Status = "done"
)

// Step is one item of the plan.
type Step struct {
	Text   string `json:"text"`
	Status Status `json:"status"`
}

// Plan is the plan tool and the step list it keeps. It is safe for
// concurrent use.
type Plan struct {
	mu    sync.Mutex // guards steps
	steps []Step
}

//go:embed description.md
var description string

var spec = llm.ToolSpec{
	Name:        Name,
	Description: strings.TrimSpace(description),
	Schema: json.RawMessage(`{"type":"object","properties":{"steps":{"type":"array","items":{"type":"object","properties":{` +
		`"text":{"type":"string"},` +
		`"status":{"type":"string","enum":["pending","in_progress","done"]}` +
		`},"required":["text","status"]}}},"required":["steps"]}`),
}

// New returns an empty plan.
func New() *Plan { return &Plan{} }

// Name implements tool.Tool.
func (p *Plan) Name() string { return Name }

// Spec implements tool.Tool.
func (p *Plan) Spec() llm.ToolSpec { return spec }

// Run implements tool.Tool: it validates and replaces the list and
// returns the rendered list. Unknown fields are ignored
// (nothing can go wrong by ignoring them); a bad step is BAD_ARGS.
func (p *Plan) Run(_ context.Context, args json.RawMessage) (tool.Result, error) {
	var in struct {
		Steps *[]Step `json:"steps"`
	}
	if err := json.Unmarshal(llm.ArgsOrEmpty(args), &in); err != nil {
		return tool.Result{}, tool.Errorf(tool.CodeBadArgs,
			`Send {"steps":[{"text":"...","status":"pending"}, ...]}.`, "bad arguments: %v", err)
	}
	if in.Steps == nil {
		return tool.Result{}, tool.Errorf(tool.CodeBadArgs,
			"Send the whole list in steps (an empty list clears the plan).", "steps is missing")
	}
	steps, err := normalize(*in.Steps)
	if err != nil {
		return tool.Result{}, err
	}
	p.mu.Lock()
	p.steps = steps
	p.mu.Unlock()
	if len(steps) == 0 {
		return tool.Result{Content: "plan cleared"}, nil
	}
	return tool.Result{Content: Render(steps)}, nil
}

// Set replaces the steps, for restoring a stored plan. It validates
// like Run.
func (p *Plan) Set(steps []Step) error {
	steps, err := normalize(steps)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps = steps
	return nil
}

// Steps returns a copy of the current steps.
func (p *Plan) Steps() []Step {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.steps)
}

// Open returns the steps not done yet, in order.
func (p *Plan) Open() []Step {
	p.mu.Lock()
	defer p.mu.Unlock()
	var open []Step
	for _, s := range p.steps {
		if s.Status != Done {
			open = append(open, s)
		}
	}
	return open
}

// Render shows steps one a line: "[x] done", "[>] in progress",
// "[ ] pending".
func Render(steps []Step) string {
	var b strings.Builder
	for i, s := range steps {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch s.Status {
		case Done:
			b.WriteString("[x] ")
		case InProgress:
			b.WriteString("[>] ")
		default:
			b.WriteString("[ ] ")
		}
		b.WriteString(s.Text)
	}
	return b.String()
}

// normalize validates steps and returns a clean copy: text trimmed and on
// one line, "completed" (the word other agents' plan tools use) read as
// done.
func normalize(in []Step) ([]Step, error) {
	if len(in) > MaxSteps {
		return nil, tool.Errorf(tool.CodeBadArgs, fmt.Sprintf("Keep at most %d steps; merge small ones.", MaxSteps),
			"the plan has %d steps", len(in))
	}
	out := make([]Step, len(in))
	active := -1
	for i, s := range in {
		s.Text = strings.Join(strings.Fields(s.Text), " ")
		if s.Text == "" {
			return nil, tool.Errorf(tool.CodeBadArgs, "Give every step a short text.", "step %d has no text", i+1)
		}
		switch s.Status {
		case Pending, InProgress, Done:
		case "completed":
			s.Status = Done
		default:
			return nil, tool.Errorf(tool.CodeBadArgs, "Use status pending, in_progress or done.",
				"step %d (%q) has unknown status %q", i+1, s.Text, s.Status)
		}
		if s.Status == InProgress {
			if active >= 0 {
				return nil, tool.Errorf(tool.CodeBadArgs,
					"Keep one step in_progress; mark the others pending or done.",
					"steps %d and %d are both in_progress", active+1, i+1)
			}
			active = i
		}
		out[i] = s
	}
	return out, nil
}

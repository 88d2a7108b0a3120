package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/goldentest"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

func TestSpecSize(t *testing.T) {
	spec := New().Spec()
	if !json.Valid(spec.Schema) {
		t.Fatalf("schema is not JSON: %s", spec.Schema)
	}
	got := fmt.Sprintf("%s description=%d schema=%d\n", spec.Name, len(spec.Description), len(spec.Schema))
	// A change in size must be deliberate: -update rewrites the pin.
	goldentest.Check(t, "spec_size.golden", []byte(got))
}

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    string
		want    string // result content
		steps   []Step // kept afterwards
		errCode string
		errHas  string
	}{
		{
			name:  "render",
			args:  `{"steps":[{"text":"a","status":"done"},{"text":"b","status":"in_progress"},{"text":"c","status":"pending"}]}`,
			want:  "[x] a\n[>] b\n[ ] c",
			steps: []Step{{"a", Done}, {"b", InProgress}, {"c", Pending}},
		},
		{
			name:  "text trimmed to one line, completed means done",
			args:  `{"steps":[{"text":"  read\n the  code ","status":"completed"}],"explanation":"ignored"}`,
			want:  "[x] read the code",
			steps: []Step{{"read the code", Done}},
		},
		{name: "empty list clears", args: `{"steps":[]}`, want: "plan cleared", steps: []Step{}},
		{name: "steps missing", args: `{}`, errCode: tool.CodeBadArgs, errHas: "steps is missing"},
		{name: "null args", args: `null`, errCode: tool.CodeBadArgs, errHas: "steps is missing"},
		{name: "not an object", args: `[1]`, errCode: tool.CodeBadArgs, errHas: "bad arguments"},
		{name: "steps not a list", args: `{"steps":"do it"}`, errCode: tool.CodeBadArgs, errHas: "bad arguments"},
		{name: "empty text", args: `{"steps":[{"text":"a","status":"done"},{"text":"  ","status":"pending"}]}`, errCode: tool.CodeBadArgs, errHas: "step 2 has no text"},
		{name: "unknown status", args: `{"steps":[{"text":"a","status":"blocked"}]}`, errCode: tool.CodeBadArgs, errHas: `unknown status "blocked"`},
		{name: "missing status", args: `{"steps":[{"text":"a"}]}`, errCode: tool.CodeBadArgs, errHas: `unknown status ""`},
		{name: "two in progress", args: `{"steps":[{"text":"a","status":"in_progress"},{"text":"b","status":"done"},{"text":"c","status":"in_progress"}]}`, errCode: tool.CodeBadArgs, errHas: "steps 1 and 3 are both in_progress"},
		{name: "too many", args: `{"steps":[` + strings.Repeat(`{"text":"x","status":"pending"},`, MaxSteps) + `{"text":"x","status":"pending"}]}`, errCode: tool.CodeBadArgs, errHas: "51 steps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := []Step{{"old", Pending}}
			p := New()
			if err := p.Set(before); err != nil {
				t.Fatal(err)
			}
			res, err := p.Run(context.Background(), json.RawMessage(tc.args))
			if tc.errCode != "" {
				var te *tool.ToolError
				if !errors.As(err, &te) || te.Code != tc.errCode || !strings.Contains(te.Message, tc.errHas) || te.Remedy == "" {
					t.Fatalf("err = %v, want %s mentioning %q with a remedy", err, tc.errCode, tc.errHas)
				}
				if !reflect.DeepEqual(p.Steps(), before) {
					t.Errorf("a failed call changed the plan to %v", p.Steps())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Content != tc.want || res.IsError {
				t.Errorf("content = %q, want %q", res.Content, tc.want)
			}
			if got := p.Steps(); !reflect.DeepEqual(got, tc.steps) {
				t.Errorf("steps = %#v, want %#v", got, tc.steps)
			}
		})
	}
}

func TestOpenAndCopies(t *testing.T) {
	p := New()
	if err := p.Set([]Step{{"a", Done}, {"b", InProgress}, {"c", Pending}}); err != nil {
		t.Fatal(err)
	}
	if got, want := p.Open(), []Step{{"b", InProgress}, {"c", Pending}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Open = %v, want %v", got, want)
	}
	p.Steps()[0].Text = "mutated"
	if p.Steps()[0].Text != "a" {
		t.Error("Steps returned the plan's own slice")
	}
	if got := Render(p.Steps()); got != "[x] a\n[>] b\n[ ] c" {
		t.Errorf("Render = %q", got)
	}
	if err := p.Set([]Step{{"x", "nope"}}); err == nil {
		t.Error("Set accepted an unknown status")
	}
}

// TestThroughRunner runs concurrent plan calls under the real runner and
// -race: every call succeeds, and the plan ends as one of the lists sent.
func TestThroughRunner(t *testing.T) {
	p := New()
	reg, err := tool.NewRegistry(p)
	if err != nil {
		t.Fatal(err)
	}
	var calls []llm.ToolCall
	for i := range 10 {
		calls = append(calls, llm.ToolCall{ID: fmt.Sprint(i), Name: Name,
			Args: json.RawMessage(fmt.Sprintf(`{"steps":[{"text":"step %d","status":"in_progress"}]}`, i))})
	}
	out, err := tool.NewRunner(reg, tool.RunnerOptions{}).Run(context.Background(), calls, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Result.IsError || o.Decision != nil {
			t.Errorf("call %s: %+v (decision %v)", o.Call.ID, o.Result, o.Decision)
		}
	}
	if got := p.Steps(); len(got) != 1 || !strings.HasPrefix(got[0].Text, "step ") {
		t.Errorf("plan %v, want one of the lists sent", got)
	}
}

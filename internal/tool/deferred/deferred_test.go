package deferred_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store/storetest"
	"github.com/godwit/godwit/internal/tool/deferred"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
	"github.com/godwit/godwit/tool"
)

// fn is a tool with a schema and, optionally, access.
func fn(name, desc, schema string, acc *tool.Access) *tool.Func {
	f := &tool.Func{
		ToolSpec: llm.ToolSpec{Name: name, Description: desc, Schema: json.RawMessage(schema)},
		Fn: func(_ context.Context, args json.RawMessage) (tool.Result, error) {
			return tool.Result{Content: name + " ran with " + string(args)}, nil
		},
	}
	if acc != nil {
		f.AccessFn = func(json.RawMessage) (tool.Access, error) { return *acc, nil }
	}
	return f
}

var (
	fileRead = fn("file_read", "Read a file.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`, nil)
	echo     = fn("mcp__srv__echo", "Echo the message back. Long details follow.",
		`{"type":"object","properties":{"message":{"type":"string"},"upper":{"type":"boolean"}},"required":["message"]}`, nil)
	deploy = fn("mcp__srv__deploy", "Deploy the site.", `{"type":"object","properties":{}}`, &tool.Access{Mutates: true, Summary: "deploy"})
)

func names(tools []tool.Tool) string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name())
	}
	return strings.Join(out, " ")
}

func TestParseMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want deferred.Mode
		err  bool
	}{{"", deferred.Off, false}, {"off", deferred.Off, false}, {" Auto ", deferred.Auto, false}, {"on", deferred.On, false}, {"yes", "", true}} {
		got, err := deferred.ParseMode(tc.in)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("ParseMode(%q) = %q, %v", tc.in, got, err)
		}
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	all := []tool.Tool{fileRead, echo, deploy}
	one := func(int) func(string) int { return func(string) int { return 1 } }
	// big's schema costs about 2,000 tokens at 4 bytes a token; its
	// listing line about 10.
	big := fn("mcp__srv__big", "A big tool.", `{"type":"object","description":"`+strings.Repeat("word ", 1600)+`"}`, nil)
	for _, tc := range []struct {
		name               string
		opts               deferred.Options
		keep               func(string) bool
		resident, deferred string
	}{
		{"off keeps all", deferred.Options{Mode: deferred.Off}, nil, "file_read mcp__srv__echo mcp__srv__deploy", ""},
		{"on defers mcp tools", deferred.Options{Mode: deferred.On}, nil, "file_read", "mcp__srv__echo mcp__srv__deploy"},
		{"used tools stay", deferred.Options{Mode: deferred.On}, func(n string) bool { return n == "mcp__srv__echo" },
			"file_read mcp__srv__echo", "mcp__srv__deploy"},
		{"auto below the threshold keeps all", deferred.Options{Mode: deferred.Auto}, nil, "file_read mcp__srv__echo mcp__srv__deploy", ""},
		{"auto above the threshold defers", deferred.Options{Mode: deferred.Auto}, nil, "file_read", "mcp__srv__echo mcp__srv__deploy mcp__srv__big"},
		{"auto when nothing is saved keeps all", deferred.Options{Mode: deferred.Auto, Count: one(0)}, nil,
			"file_read mcp__srv__echo mcp__srv__deploy", ""},
		{"custom choice", deferred.Options{Mode: deferred.On, Deferrable: func(n string) bool { return n == "file_read" }}, nil,
			"mcp__srv__echo mcp__srv__deploy", "file_read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools := all
			if strings.Contains(tc.name, "above") {
				tools = append(all[:3:3], big)
			}
			r, d := deferred.Split(tools, tc.opts, tc.keep)
			if names(r) != tc.resident || names(d) != tc.deferred {
				t.Errorf("resident %q deferred %q, want %q and %q", names(r), names(d), tc.resident, tc.deferred)
			}
		})
	}
}

func TestListing(t *testing.T) {
	t.Parallel()
	want := `# Deferred tools
Not in the tool table; call them with tool_call {"name": ..., "args": {...}}. A tool you use joins the table at the next context reset.
- mcp__srv__echo(message, upper?): Echo the message back.
- mcp__srv__deploy(): Deploy the site.
`
	if got := deferred.Listing([]tool.Tool{echo, deploy}); got != want {
		t.Errorf("listing:\n%s\nwant:\n%s", got, want)
	}
	if got := deferred.Listing(nil); got != "" {
		t.Errorf("empty listing = %q", got)
	}
}

func TestProxy(t *testing.T) {
	t.Parallel()
	table, err := deferred.New(deferred.Options{Mode: deferred.On}, fileRead, echo, deploy)
	if err != nil {
		t.Fatal(err)
	}
	p := table.Proxy()
	for _, tc := range []struct {
		name, args, want, code string
	}{
		{"runs the tool", `{"name":"mcp__srv__echo","args":{"message":"hi"}}`, `mcp__srv__echo ran with {"message":"hi"}`, ""},
		{"no args is {}", `{"name":"mcp__srv__deploy"}`, `mcp__srv__deploy ran with {}`, ""},
		{"unknown", `{"name":"nope"}`, "Use one of: mcp__srv__echo, mcp__srv__deploy.", tool.CodeUnknownTool},
		{"no name", `{}`, `Send {"name"`, tool.CodeBadArgs},
		{"missing required", `{"name":"mcp__srv__echo","args":{}}`, `args lack message`, tool.CodeBadArgs},
		{"the schema comes back", `{"name":"mcp__srv__echo","args":[1]}`, `"required":["message"]`, tool.CodeBadArgs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := p.Run(context.Background(), json.RawMessage(tc.args))
			if tc.code == "" {
				if err != nil || res.Content != tc.want {
					t.Errorf("= %q, %v; want %q", res.Content, err, tc.want)
				}
				return
			}
			te := tool.AsToolError(err)
			if te.Code != tc.code || !strings.Contains(te.Error(), tc.want) {
				t.Errorf("err = %v; want %s with %q", err, tc.code, tc.want)
			}
		})
	}
	acc, err := p.Access(json.RawMessage(`{"name":"mcp__srv__deploy"}`))
	if err != nil || !acc.Mutates || acc.Summary != "deploy" {
		t.Errorf("access = %+v, %v: want the deferred tool's", acc, err)
	}
}

func TestAUsedToolJoinsTheTableAtTheNextSegment(t *testing.T) {
	t.Parallel()
	table, err := deferred.New(deferred.Options{Mode: deferred.On}, fileRead, echo, deploy)
	if err != nil {
		t.Fatal(err)
	}
	specNames := func(seg deferred.Segment) string {
		var out []string
		for _, s := range seg.Tools {
			out = append(out, s.Name)
		}
		return strings.Join(out, " ")
	}
	seg := table.Segment("s1")
	if specNames(seg) != "file_read tool_call" || !strings.Contains(seg.Listing, "- mcp__srv__echo(") {
		t.Fatalf("first segment: %q\n%s", specNames(seg), seg.Listing)
	}
	ctx := tool.WithSession(context.Background(), tool.Session{ID: "s1"})
	if _, err := table.Proxy().Run(ctx, json.RawMessage(`{"name":"mcp__srv__echo","args":{"message":"x"}}`)); err != nil {
		t.Fatal(err)
	}
	seg = table.Segment("s1")
	if specNames(seg) != "file_read mcp__srv__echo tool_call" || strings.Contains(seg.Listing, "echo") {
		t.Errorf("next segment: %q\n%s", specNames(seg), seg.Listing)
	}
	if got := specNames(table.Segment("s2")); got != "file_read tool_call" {
		t.Errorf("another session's table = %q", got)
	}

	late := fn("mcp__late__ping", "Ping.", `{"type":"object"}`, nil)
	if err := table.Add(late); err != nil {
		t.Fatal(err)
	}
	if seg := table.Segment("s2"); !strings.Contains(seg.Listing, "mcp__late__ping") {
		t.Errorf("a tool added late is not listed:\n%s", seg.Listing)
	}
	if err := table.Add(late); err == nil {
		t.Error("adding a tool twice succeeded")
	}
	if n := table.Offer(late, fn("mcp__late__pong", "Pong.", `{"type":"object"}`, nil)); n != 1 {
		t.Errorf("Offer added %d tools, want only the new one", n)
	}
	off, _ := deferred.New(deferred.Options{}, fileRead, echo)
	if seg := off.Segment("s"); specNames(seg) != "file_read mcp__srv__echo" || seg.Listing != "" {
		t.Errorf("off: %q %q", specNames(seg), seg.Listing)
	}
}

// TestProxyThroughTheRunner runs tool_call in a real turn: the deferred
// tool's approval applies (no approver: the mutating call is denied),
// and a read-only deferred tool runs.
func TestProxyThroughTheRunner(t *testing.T) {
	t.Parallel()
	table, err := deferred.New(deferred.Options{Mode: deferred.On}, fileRead, echo, deploy)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tool.NewRegistry(fileRead, echo, deploy, table.Proxy())
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.Open(t)
	seg := table.Segment("")
	model := fake.New(
		fake.Step{ToolCalls: []llm.ToolCall{
			fake.Call("1", "tool_call", map[string]any{"name": "mcp__srv__echo", "args": map[string]string{"message": "hi"}}),
			fake.Call("2", "tool_call", map[string]any{"name": "mcp__srv__deploy"}),
		}},
		fake.Step{Text: "done"},
	)
	rt, err := agent.New(agent.Config{Provider: model, Model: "scripted", Store: st, Workspace: t.TempDir(),
		Assembler: window.New(window.Options{System: "sys\n\n" + seg.Listing, Tools: seg.Tools}),
		Runner:    tool.NewRunner(reg, tool.RunnerOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Run(context.Background(), agent.RunInput{Prompt: "go", NoChecks: true}); err != nil {
		t.Fatal(err)
	}
	req := model.Requests()[1]
	var results []string
	for _, p := range req.Messages[len(req.Messages)-1].Parts {
		if p.ToolResult != nil {
			results = append(results, p.ToolResult.Content)
		}
	}
	if len(results) != 2 || results[0] != `mcp__srv__echo ran with {"message":"hi"}` || !strings.Contains(results[1], "DENIED") {
		t.Errorf("results = %q", results)
	}
}

// TestProxySpecSize pins what tool_call costs on every request it is
// offered in.
func TestProxySpecSize(t *testing.T) {
	t.Parallel()
	table, _ := deferred.New(deferred.Options{})
	whole, _ := json.Marshal(table.Proxy().Spec())
	if n := window.NewCounter().Count(string(whole)); n != 60 {
		t.Errorf("tool_call's spec is %d o200k tokens, pinned at 60: update the pin if the growth is meant", n)
	}
}

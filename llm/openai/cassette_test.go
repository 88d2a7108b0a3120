package openai

import (
	"encoding/json"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// The cassettes in testdata/cassettes are written by hand from the
// vendors' documented wire formats (Chat Completions, a DeepSeek-style
// compatible server with reasoning_content, Responses). Each streaming
// cassette is replayed through the adapter; its parsed answer plus the
// cassette's tool results must give a follow-up request that means the
// same as the cassette's. The non-streaming cassettes hold one JSON
// answer, which an always-streaming adapter cannot read, so only their
// requests are used: rebuilt from llm types, they must mean what the
// cassette says.

// recordedUsage is the usage each answer reports, per interaction: input,
// output, cached, reasoning. Read off the cassettes by hand, as the oracle
// for the adapter's usage mapping.
var recordedUsage = map[string][][4]int64{
	"chat/multi_tool_streaming.yaml":      {{98, 52, 0, 0}, {167, 16, 0, 0}},
	"chat/simple_streaming.yaml":          {{17, 5, 0, 0}},
	"chat/thinking_streaming.yaml":        {{312, 58, 256, 31}, {389, 24, 320, 6}},
	"chat/tool_streaming.yaml":            {{71, 15, 0, 0}, {96, 9, 64, 0}},
	"responses/multi_tool_streaming.yaml": {{112, 210, 0, 128}, {170, 20, 0, 0}},
	"responses/simple_streaming.yaml":     {{18, 78, 0, 64}},
	"responses/thinking_streaming.yaml":   {{66, 190, 0, 160}, {330, 96, 64, 64}},
	"responses/tool_streaming.yaml":       {{74, 150, 0, 128}, {240, 86, 128, 64}},
}

func usageOf(u [4]int64) llm.Usage {
	return llm.Usage{InputTokens: u[0], OutputTokens: u[1], CacheReadTokens: u[2], ReasoningTokens: u[3]}
}

// finalText is what every cassette's last answer must contain, by the
// cassette's base name: the prompts ask for good morning in Spanish, 4+7
// and 4*7, the time in Lisbon (the tool says 14:05), or whether it is
// morning in Osaka (09:12).
func finalText(name string) []string {
	switch base := path.Base(name); {
	case strings.HasPrefix(base, "simple"):
		return []string{"Buenos días"}
	case strings.HasPrefix(base, "multi_tool"):
		return []string{"11", "28"}
	case strings.HasPrefix(base, "thinking"):
		return []string{"09:12"}
	default:
		return []string{"14:05"}
	}
}

// sortedCassettes loads a folder's cassettes in a stable order.
func sortedCassettes(t *testing.T, dir string) ([]string, map[string]*llmtest.Cassette) {
	t.Helper()
	cs := llmtest.Cassettes(t, "testdata/cassettes/"+dir)
	names := make([]string, 0, len(cs))
	for n := range cs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, cs
}

// canonical re-encodes JSON with sorted keys and no spaces, so that two
// encodings of the same value compare equal.
func canonical(t testing.TB, raw string) string {
	t.Helper()
	if strings.TrimSpace(raw) == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return "INVALID:" + raw
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// sameShape fails t when the two normalized request shapes differ.
func sameShape(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("%s differs in meaning from the recorded one:\n--- ours\n%s\n--- recorded\n%s", what, g, w)
	}
}

// checkUsage compares the stream's usage event with the recorded figures.
func checkUsage(t *testing.T, name string, i int, evs []llm.Event) {
	t.Helper()
	table, ok := recordedUsage[name]
	if !ok || i >= len(table) {
		t.Errorf("no recorded usage for %s interaction %d: add it to recordedUsage", name, i)
		return
	}
	u := ofType(evs, llm.EventUsage)
	if len(u) == 0 {
		t.Errorf("answer %d: no usage event", i)
		return
	}
	if got, want := *u[len(u)-1].Usage, usageOf(table[i]); got != want {
		t.Errorf("answer %d: usage = %+v, want %+v", i, got, want)
	}
}

func checkFinal(t *testing.T, name string, evs []llm.Event) {
	t.Helper()
	text := response(evs).Message.Text()
	for _, w := range finalText(name) {
		if !slices.ContainsFunc(strings.Split(w, "|"), func(s string) bool { return strings.Contains(text, s) }) {
			t.Errorf("final answer %q lacks %q", text, w)
		}
	}
	if last := evs[len(evs)-1]; last.Type != llm.EventStop || last.StopReason != llm.StopEndTurn {
		t.Errorf("final answer ended with %s %q, want stop end_turn", last.Type, last.StopReason)
	}
	if len(response(evs).Message.ToolCalls()) != 0 {
		t.Errorf("final answer has tool calls")
	}
}

// followUp is req with the parsed answer and the recorded tool results
// appended, as the agent loop would build it.
func followUp(t *testing.T, req llm.Request, answer llm.Message, results map[string]string) llm.Request {
	t.Helper()
	calls := answer.ToolCalls()
	if len(calls) == 0 {
		t.Fatalf("the first answer has no tool calls")
	}
	var rs []llm.ToolResult
	for _, c := range calls {
		out, ok := results[c.ID]
		if !ok {
			t.Fatalf("parsed call id %q is not answered in the recorded follow-up (ids: %v)", c.ID, results)
		}
		rs = append(rs, llm.ToolResult{CallID: c.ID, Name: c.Name, Content: out})
	}
	next := req
	next.Messages = append(slices.Clone(req.Messages), answer, toolResults(rs...))
	return next
}

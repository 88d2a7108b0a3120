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

// Recorded streams from shared/fixtures/providers (see its README): real
// answers of OpenAI, Groq (Kimi) and Z.ai (GLM), and the follow-up request
// the recording client built. Each streaming cassette is replayed through
// the adapter; its parsed answer plus the recorded tool results must give
// a follow-up request that means the same as the recorded one. The
// non-streaming cassettes hold one JSON answer, which an always-streaming
// adapter cannot read, so only their requests are used: rebuilt from llm
// types, they must mean what was recorded.

// recordedUsage is the usage each recorded answer reports, per
// interaction: input, output, cached, reasoning. Read off the cassettes
// by hand, as the oracle for the adapter's usage mapping.
var recordedUsage = map[string][][4]int64{
	"TestOpenAICommon/openai-gpt-4o-mini/multi_tool_streaming.yaml":               {{106, 50, 0, 0}, {172, 26, 0, 0}},
	"TestOpenAICommon/openai-gpt-4o-mini/simple_streaming.yaml":                   {{20, 2, 0, 0}},
	"TestOpenAICommon/openai-gpt-4o-mini/tool_streaming.yaml":                     {{61, 16, 0, 0}, {86, 13, 0, 0}},
	"TestOpenAICommon/openai-gpt-5/multi_tool_streaming.yaml":                     {{190, 379, 0, 320}, {262, 25, 0, 0}},
	"TestOpenAICommon/openai-gpt-5/simple_streaming.yaml":                         {{19, 75, 0, 64}},
	"TestOpenAICommon/openai-gpt-5/tool_streaming.yaml":                           {{145, 89, 0, 64}, {176, 228, 0, 192}},
	"TestOpenAICompatibleCommon/groq-kimi-k2/multi_tool_streaming.yaml":           {{201, 58, 0, 0}, {296, 30, 0, 0}},
	"TestOpenAICompatibleCommon/groq-kimi-k2/simple_streaming.yaml":               {{20, 4, 0, 0}},
	"TestOpenAICompatibleCommon/groq-kimi-k2/tool_streaming.yaml":                 {{93, 32, 0, 0}, {143, 13, 0, 0}},
	"TestOpenAICompatibleCommon/zai-glm-4-7-flash/multi_tool_streaming.yaml":      {{275, 112, 43, 64}, {395, 79, 251, 41}},
	"TestOpenAICompatibleCommon/zai-glm-4-7-flash/simple_streaming.yaml":          {{15, 734, 14, 708}},
	"TestOpenAICompatibleCommon/zai-glm-4-7-flash/tool_streaming.yaml":            {{173, 93, 172, 65}, {272, 156, 43, 90}},
	"TestOpenAICompatibleThinking/zai-glm-4-7-flash/thinking-streaming.yaml":      {{173, 87, 172, 63}, {266, 71, 177, 49}},
	"TestOpenAIResponsesCommon/openai-gpt-5/multi_tool_streaming.yaml":            {{109, 223, 0, 128}, {167, 30, 0, 0}},
	"TestOpenAIResponsesCommon/openai-gpt-5/simple_streaming.yaml":                {{19, 118, 0, 64}},
	"TestOpenAIResponsesCommon/openai-gpt-5/tool_streaming.yaml":                  {{63, 77, 0, 0}, {92, 194, 0, 128}},
	"TestOpenAIResponsesWithSummaryThinking/openai-gpt-5/thinking-streaming.yaml": {{63, 121, 0, 64}, {92, 456, 0, 384}},
}

func usageOf(u [4]int64) llm.Usage {
	return llm.Usage{InputTokens: u[0], OutputTokens: u[1], CacheReadTokens: u[2], ReasoningTokens: u[3]}
}

// finalText is what every cassette's last answer must contain, by the
// cassette's base name: the prompts ask for "hi" in Portuguese, the
// weather in Florence (the tool says 40 C), or 2+3 and 2*3. "a|b" means
// either.
func finalText(name string) []string {
	switch base := path.Base(name); {
	case strings.HasPrefix(base, "simple"):
		return []string{"Olá|Oi"}
	case strings.HasPrefix(base, "multi_tool"):
		return []string{"5", "6"}
	default:
		return []string{"40"}
	}
}

// sortedCassettes loads a folder's cassettes in a stable order.
func sortedCassettes(t *testing.T, dir string) ([]string, map[string]*llmtest.Cassette) {
	t.Helper()
	cs := llmtest.Cassettes(t, dir)
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

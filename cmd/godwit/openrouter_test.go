package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm/llmtest"
)

// orChunk is one chunk as OpenRouter streams it (its recorded streams'
// shape: "reasoning" text beside the upstream blocks in fragments of
// "reasoning_details").
func orChunk(delta string) string {
	return `data: {"id":"gen-1","provider":"Anthropic","model":"anthropic/claude-sonnet-4.5","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":` + delta + `,"finish_reason":null,"native_finish_reason":null,"logprobs":null}]}` + "\n\n"
}

func orEnd(reason string) string {
	return `data: {"id":"gen-1","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"` + reason + `","native_finish_reason":"` + reason + `"}]}` + "\n\n" +
		`data: {"id":"gen-1","object":"chat.completion.chunk","created":1,"choices":[],"usage":{"prompt_tokens":900,"completion_tokens":40,"total_tokens":940,"completion_tokens_details":{"reasoning_tokens":20}}}` + "\n\n" +
		"data: [DONE]\n\n"
}

// A Claude model through OpenRouter, one `godwit run --session` process a
// turn: the built-in openrouter provider follows OPENROUTER_BASE_URL, asks
// for the configured effort with OpenRouter's reasoning parameter, sends
// the signed reasoning back as reasoning_details, and a later process
// sends the same bytes for the earlier turn.
func TestOpenRouterReasoningAcrossProcesses(t *testing.T) {
	const sig = "EqcDCkgICBACGAIqQDV0Mem0naIq1Zn2+/=="
	srv := llmtest.NewTestServer(t,
		llmtest.Reply{Body: orChunk(`{"role":"assistant","content":"","reasoning":null,"reasoning_details":[{"type":"reasoning.text","text":"","signature":"","format":"anthropic-claude-v1","index":0}]}`) +
			orChunk(`{"role":"assistant","content":"","reasoning":"The user asks about a.txt;","reasoning_details":[{"type":"reasoning.text","text":"The user asks about a.txt;","format":"anthropic-claude-v1","index":0}]}`) +
			orChunk(`{"role":"assistant","content":"","reasoning":" read it <first>.","reasoning_details":[{"type":"reasoning.text","text":" read it <first>.","format":"anthropic-claude-v1","index":0}]}`) +
			orChunk(`{"role":"assistant","content":"","reasoning":null,"reasoning_details":[{"type":"reasoning.text","signature":"`+sig+`","format":"anthropic-claude-v1","index":0}]}`) +
			orChunk(`{"role":"assistant","content":null,"tool_calls":[{"id":"toolu_1","index":0,"type":"function","function":{"name":"file_read","arguments":""}}]}`) +
			orChunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"type":"function","function":{"arguments":"{\"path\": \"a.txt\"}"}}]}`) +
			orEnd("tool_calls")},
		llmtest.ChatTextReply("a.txt says hi", 950, 6),
		llmtest.ChatTextReply("still hi", 990, 3),
	)
	home, ws := t.TempDir(), t.TempDir()
	cfg := "models:\n  - provider: openrouter\n    id: anthropic/claude-sonnet-4.5\n    reasoning: high\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"OPENROUTER_API_KEY=or-test-key", "OPENROUTER_BASE_URL=" + srv.URL() + "/api/v1"}
	first := godwit(t, home, ws, env, "run", "--json", "--model", "openrouter/anthropic/claude-sonnet-4.5", "-p", "what does a.txt say?")
	if first.code != 0 {
		t.Fatalf("turn 1: exit %d\n%s", first.code, first.stderr)
	}
	second := godwit(t, home, ws, env, "run", "--json", "--model", "openrouter/anthropic/claude-sonnet-4.5", "--session", sessionID(t, first.stdout), "-p", "and now?")
	if second.code != 0 {
		t.Fatalf("turn 2: exit %d\n%s", second.code, second.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if reqs[0].Path != "/api/v1/chat/completions" || reqs[0].Header.Get("Authorization") != "Bearer or-test-key" {
		t.Errorf("OPENROUTER_BASE_URL or the key was not used: %s %q", reqs[0].Path, reqs[0].Header.Get("Authorization"))
	}
	var body struct {
		Reasoning json.RawMessage `json:"reasoning"`
		Effort    *string         `json:"reasoning_effort"`
		Messages  []map[string]json.RawMessage
	}
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	if string(body.Reasoning) != `{"effort":"high"}` || body.Effort != nil {
		t.Errorf("reasoning parameter %s, reasoning_effort %v", body.Reasoning, body.Effort)
	}
	var asst map[string]json.RawMessage
	for _, m := range body.Messages {
		if string(m["role"]) == `"assistant"` {
			asst = m
		}
	}
	var details []struct{ Type, Text, Signature, Format string }
	if err := json.Unmarshal(asst["reasoning_details"], &details); err != nil || len(details) != 1 ||
		details[0].Signature != sig || details[0].Text != "The user asks about a.txt; read it <first>." || details[0].Format != "anthropic-claude-v1" {
		t.Errorf("reasoning_details sent back: %s (%v)", asst["reasoning_details"], err)
	}
	if _, ok := asst["reasoning_content"]; ok {
		t.Errorf("OpenRouter got reasoning_content: %s", reqs[1].Body)
	}
	prev, next := cacheItems(t, "openai-chat", reqs[1].Body), cacheItems(t, "openai-chat", reqs[2].Body)
	for i := range prev {
		if i >= len(next) || !bytes.Equal(prev[i], next[i]) {
			t.Fatalf("item %d differs across processes:\n last: %s\n next: %s", i, prev[i], next[min(i, len(next)-1)])
		}
	}
	if !strings.Contains(string(reqs[2].Body), sig) {
		t.Error("the second process lost the signature")
	}
}

// A reasoning model on the Responses API is asked for reasoning
// summaries, as Codex asks, and for the encrypted reasoning it needs
// across tool calls; the summary it sends is shown as thinking.
func TestResponsesAskForReasoningSummaries(t *testing.T) {
	srv := llmtest.NewTestServer(t,
		llmtest.ResponsesReply(llmtest.ResponsesCreated(), llmtest.ResponsesReasoning("rs_1", "enc-1", "**Reading the question**"), llmtest.ResponsesText("hi"), llmtest.ResponsesCompleted(900, 12)),
	)
	home, ws := t.TempDir(), t.TempDir()
	cfg := "providers:\n  local:\n    type: openai-responses\n    base_url: " + srv.URL() + "/v1\n    no_key: true\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := godwit(t, home, ws, nil, "run", "--json", "--model", "local/gpt-5", "-p", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var body struct {
		Reasoning struct{ Summary string } `json:"reasoning"`
		Include   []string                 `json:"include"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Reasoning.Summary != "auto" || len(body.Include) != 1 || body.Include[0] != "reasoning.encrypted_content" {
		t.Errorf("reasoning %+v, include %v; want summary auto and the encrypted content", body.Reasoning, body.Include)
	}
	if !strings.Contains(r.stdout, `"thinking":"**Reading the question**"`) {
		t.Errorf("the summary is not in model.response's thinking:\n%s", r.stdout)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/godwit/godwit/llm/llmtest"
)

// A session resumed by another process sends, for everything already
// sent, the same bytes the first process sent, on all three wire formats:
// the provider's prompt cache then covers the whole earlier conversation
// at every turn boundary. The model writes its tool arguments with spaces,
// as models do; they must come back as written, not re-encoded.
func TestResumedSessionSendsTheSameBytes(t *testing.T) {
	t.Parallel()
	const args = `{"path": "a.txt"}`
	formats := []struct {
		typ     string
		replies []llmtest.Reply
	}{
		{"openai-chat", []llmtest.Reply{
			llmtest.ChatReply(llmtest.ChatToolCall("call_1", "file_read", args), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 12)),
			llmtest.ChatTextReply("a.txt says <hi> & bye", 950, 6),
			llmtest.ChatTextReply("second answer", 990, 3),
		}},
		{"openai-responses", []llmtest.Reply{
			llmtest.ResponsesReply(llmtest.ResponsesCreated(), llmtest.ResponsesFunctionCall("call_1", "file_read", args), llmtest.ResponsesCompleted(900, 12)),
			llmtest.ResponsesTextReply("a.txt says <hi> & bye", 950, 6),
			llmtest.ResponsesTextReply("second answer", 990, 3),
		}},
		{"anthropic", []llmtest.Reply{
			llmtest.AnthropicReply(llmtest.AnthropicToolUse("toolu_1", "file_read", args), llmtest.AnthropicUsage(900, 12, 0, 0), llmtest.AnthropicStop("tool_use")),
			llmtest.AnthropicReply(llmtest.AnthropicText("a.txt says <hi> & bye"), llmtest.AnthropicUsage(950, 6, 0, 0)),
			llmtest.AnthropicReply(llmtest.AnthropicText("second answer"), llmtest.AnthropicUsage(990, 3, 0, 0)),
		}},
	}
	for _, f := range formats {
		t.Run(f.typ, func(t *testing.T) {
			reqs := twoTurns(t, f.typ, "hi <there> & \"friends\"\n", "Rule: never edit vendor/. Read a.txt.", f.replies)
			if !bytes.Contains(reqs[2].Body, []byte(`"path": \"a.txt\"`)) && !bytes.Contains(reqs[2].Body, []byte(`{\"path\": \"a.txt\"}`)) && f.typ != "anthropic" {
				t.Errorf("the arguments were re-encoded: %s", reqs[2].Body)
			}
		})
	}
}

// twoTurns runs two `godwit run` processes of one session against a
// server speaking typ with replies, a.txt holding text, and returns the
// three requests the server received, checking that the third (the
// second process's) starts with every item of the second byte for byte.
func twoTurns(t *testing.T, typ, text, prompt string, replies []llmtest.Reply) []llmtest.Captured {
	t.Helper()
	srv := llmtest.NewTestServer(t, replies...)
	home, ws := t.TempDir(), t.TempDir()
	cfg := fmt.Sprintf("providers:\n  local:\n    type: %s\n    base_url: %s/v1\n    no_key: true\n", typ, srv.URL())
	if typ == "anthropic" {
		cfg = fmt.Sprintf("providers:\n  local:\n    type: anthropic\n    base_url: %s\n    no_key: true\n", srv.URL())
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	first := godwit(t, home, ws, nil, "run", "--json", "--model", "local/m", "-p", prompt)
	if first.code != 0 {
		t.Fatalf("turn 1: exit %d\n%s", first.code, first.stderr)
	}
	second := godwit(t, home, ws, nil, "run", "--json", "--model", "local/m", "--session", sessionID(t, first.stdout), "-p", "and now?")
	if second.code != 0 {
		t.Fatalf("turn 2: exit %d\n%s", second.code, second.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	prev, next := cacheItems(t, typ, reqs[1].Body), cacheItems(t, typ, reqs[2].Body)
	if len(next) <= len(prev) {
		t.Fatalf("the resumed request has %d items, the last one %d", len(next), len(prev))
	}
	for i := range prev {
		if !bytes.Equal(prev[i], next[i]) {
			t.Fatalf("item %d differs across processes:\n last: %s\n next: %s", i, prev[i], next[i])
		}
	}
	return reqs
}

var sessionRe = regexp.MustCompile(`"session_id":"([^"]+)"`)

func sessionID(t *testing.T, jsonl string) string {
	t.Helper()
	m := sessionRe.FindStringSubmatch(jsonl)
	if m == nil {
		t.Fatalf("no session id in %q", jsonl)
	}
	return m[1]
}

// cacheItems lists a request's parts in the order provider caches read
// them (tools, system, messages), each as the raw bytes sent. Anthropic's
// cache_control markers move to the newest message by design and are not
// part of what its cache compares, so they are left out.
func cacheItems(t *testing.T, typ string, body []byte) [][]byte {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	add := func(raw json.RawMessage) {
		if typ == "anthropic" {
			raw = stripCacheControl(t, raw)
		}
		out = append(out, raw)
	}
	add(top["tools"])
	list := "messages"
	switch typ {
	case "openai-responses":
		add(top["instructions"])
		list = "input"
	case "anthropic":
		add(top["system"])
	}
	var items []json.RawMessage
	if err := json.Unmarshal(top[list], &items); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		add(it)
	}
	return out
}

var cacheControlRe = regexp.MustCompile(`,?"cache_control":\{[^{}]*\}`)

func stripCacheControl(t *testing.T, raw json.RawMessage) json.RawMessage {
	t.Helper()
	out := cacheControlRe.ReplaceAll(raw, nil)
	out = bytes.ReplaceAll(out, []byte(`{,`), []byte(`{`))
	if !json.Valid(out) {
		t.Fatalf("stripping cache_control broke %s", raw)
	}
	return out
}

// The model's reasoning goes back byte for byte too, from another
// process: Chat Completions' reasoning_content on a tool-calling turn,
// Responses' encrypted reasoning items, Anthropic's signed and redacted
// thinking blocks. A vendor rejects a history whose signatures changed,
// and any change breaks the cache.
func TestResumedSessionReplaysReasoningByteForByte(t *testing.T) {
	const args = `{"path": "a.txt"}`
	formats := []struct {
		typ     string
		replies []llmtest.Reply
		want    []string // in the resumed request, byte for byte
	}{
		{"openai-chat", []llmtest.Reply{
			llmtest.ChatReply(llmtest.ChatReasoning("I should read a.txt <first>."), llmtest.ChatToolCall("call_1", "file_read", args), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(900, 12)),
			llmtest.ChatReply(llmtest.ChatReasoning("It says hi."), llmtest.ChatText("a.txt says hi"), llmtest.ChatFinish("stop"), llmtest.ChatUsage(950, 6)),
			llmtest.ChatTextReply("second answer", 990, 3),
		}, []string{`"reasoning_content":"I should read a.txt <first>."`}},
		{"openai-responses", []llmtest.Reply{
			llmtest.ResponsesReply(llmtest.ResponsesReasoning("rs_1", "ENC+/=AAA<1>", "Reading a.txt first."), llmtest.ResponsesFunctionCall("call_1", "file_read", args), llmtest.ResponsesCompleted(900, 12)),
			llmtest.ResponsesReply(llmtest.ResponsesReasoning("rs_2", "ENC+/=BBB<2>", "It says hi."), llmtest.ResponsesText("a.txt says hi"), llmtest.ResponsesCompleted(950, 6)),
			llmtest.ResponsesTextReply("second answer", 990, 3),
		}, []string{`"encrypted_content":"ENC+/=AAA<1>"`, `"encrypted_content":"ENC+/=BBB<2>"`, `"id":"rs_1"`}},
		{"anthropic", []llmtest.Reply{
			llmtest.AnthropicReply(llmtest.AnthropicThinking("I should read a.txt.", "SIG+/=first"), llmtest.AnthropicRedactedThinking("REDACTED+/="), llmtest.AnthropicToolUse("toolu_1", "file_read", args), llmtest.AnthropicUsage(900, 12, 0, 0), llmtest.AnthropicStop("tool_use")),
			llmtest.AnthropicReply(llmtest.AnthropicThinking("It says hi.", "SIG+/=second"), llmtest.AnthropicText("a.txt says hi"), llmtest.AnthropicUsage(950, 6, 0, 0)),
			llmtest.AnthropicReply(llmtest.AnthropicText("second answer"), llmtest.AnthropicUsage(990, 3, 0, 0)),
		}, []string{`"signature":"SIG+/=first"`, `"signature":"SIG+/=second"`, `"data":"REDACTED+/="`}},
	}
	for _, f := range formats {
		t.Run(f.typ, func(t *testing.T) {
			reqs := twoTurns(t, f.typ, "hi\n", "Read a.txt.", f.replies)
			for _, w := range f.want {
				if !bytes.Contains(reqs[2].Body, []byte(w)) {
					t.Errorf("the resumed request lacks %s:\n%s", w, reqs[2].Body)
				}
			}
		})
	}
}

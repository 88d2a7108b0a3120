package openai

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// recordedResponses is the part of a recorded Responses body we read.
type recordedResponses struct {
	Model           string   `json:"model"`
	Store           *bool    `json:"store"`
	Include         []string `json:"include"`
	MaxOutputTokens int      `json:"max_output_tokens"`
	Reasoning       struct {
		Effort  string `json:"effort"`
		Summary string `json:"summary"`
	} `json:"reasoning"`
	Input []recordedItem `json:"input"`
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      bool            `json:"strict"`
	} `json:"tools"`
}

type recordedItem struct {
	Type             string          `json:"type"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ID               string          `json:"id"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        string          `json:"arguments"`
	Output           string          `json:"output"`
	EncryptedContent string          `json:"encrypted_content"`
	Summary          []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

func parseRecordedResponses(t *testing.T, body string) recordedResponses {
	t.Helper()
	var r recordedResponses
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("recorded request is not JSON: %v", err)
	}
	return r
}

// responsesRequestFrom rebuilds the llm.Request a recorded body came from.
func responsesRequestFrom(t *testing.T, body string) llm.Request {
	t.Helper()
	r := parseRecordedResponses(t, body)
	req := llm.Request{Model: r.Model, MaxOutputTokens: r.MaxOutputTokens, Reasoning: r.Reasoning.Effort}
	for _, tl := range r.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: tl.Name, Description: tl.Description, Schema: tl.Parameters})
	}
	// assistant returns the assistant message being built, starting one
	// when the last message is not an assistant's.
	assistant := func() *llm.Message {
		if n := len(req.Messages); n == 0 || req.Messages[n-1].Role != llm.RoleAssistant {
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant})
		}
		return &req.Messages[len(req.Messages)-1]
	}
	for i, it := range r.Input {
		switch {
		case it.Role == "developer" || it.Role == "system":
			if i != 0 {
				t.Fatalf("%s message at %d", it.Role, i)
			}
			req.System = llmtest.ContentText(it.Content)
		case it.Role == "user":
			req.Messages = append(req.Messages, llm.UserText(llmtest.ContentText(it.Content)))
		case it.Role == "assistant":
			a := assistant()
			a.Parts = append(a.Parts, llm.TextPart(llmtest.ContentText(it.Content)))
		case it.Type == "reasoning":
			var sum []string
			for _, s := range it.Summary {
				sum = append(sum, s.Text)
			}
			a := assistant()
			a.Parts = append(a.Parts, llm.Part{Kind: llm.PartThinking, Thinking: &llm.Thinking{ID: it.ID, Signature: it.EncryptedContent, Summary: sum, Provider: ProviderResponses}})
		case it.Type == "function_call":
			a := assistant()
			a.Parts = append(a.Parts, callPart(it.CallID, it.Name, it.Arguments))
		case it.Type == "function_call_output":
			res := llm.ToolResult{CallID: it.CallID, Content: it.Output}
			if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == llm.RoleTool {
				req.Messages[n-1].Parts = append(req.Messages[n-1].Parts, llm.Part{Kind: llm.PartToolResult, ToolResult: &res})
			} else {
				req.Messages = append(req.Messages, toolResults(res))
			}
		default:
			t.Fatalf("unexpected input item %+v", it)
		}
	}
	return req
}

// responsesShape is what a Responses body means. Reasoning items and the
// include list are left out and checked on their own: the recording client
// did not send reasoning back, godwit does.
type responsesShape struct {
	Model           string
	Store           bool
	MaxOutputTokens int
	Effort, Summary string
	Tools           []string
	Items           []string
}

// ourShape is the shape of a request godwit sent, less what godwit adds
// on purpose to what the recording client sent: a reasoning model is
// asked for reasoning summaries (summary "auto"), which the client of
// the Common recordings did not ask for.
func ourShape(t *testing.T, body []byte) responsesShape {
	t.Helper()
	s := responsesShapeOf(t, string(body))
	if !reasoningModel(s.Model) || s.Summary != "auto" {
		t.Errorf("a request to reasoning model %s asks for summary %q, want auto", s.Model, s.Summary)
	}
	if s.Effort == "" {
		s.Summary = "" // compared without it; the effort-bearing recordings asked for it too
	}
	return s
}

func responsesShapeOf(t *testing.T, body string) responsesShape {
	t.Helper()
	r := parseRecordedResponses(t, body)
	s := responsesShape{Model: r.Model, Store: r.Store != nil && *r.Store, MaxOutputTokens: r.MaxOutputTokens,
		Effort: r.Reasoning.Effort, Summary: r.Reasoning.Summary}
	for _, tl := range r.Tools {
		s.Tools = append(s.Tools, strings.Join([]string{tl.Name, tl.Description, canonical(t, string(tl.Parameters)), itoa(map[bool]int{true: 1}[tl.Strict])}, "|"))
	}
	for _, it := range r.Input {
		switch {
		case it.Type == "reasoning":
			continue
		case it.Role == "developer" || it.Role == "system":
			s.Items = append(s.Items, "system: "+llmtest.ContentText(it.Content))
		case it.Role != "":
			s.Items = append(s.Items, it.Role+": "+llmtest.ContentText(it.Content))
		case it.Type == "function_call":
			s.Items = append(s.Items, "function_call "+it.CallID+" "+it.Name+" "+canonical(t, it.Arguments))
		case it.Type == "function_call_output":
			s.Items = append(s.Items, "function_call_output "+it.CallID+" "+it.Output)
		default:
			s.Items = append(s.Items, "unknown "+it.Type)
		}
	}
	return s
}

// streamOracle reads, straight from a recorded SSE body, the final texts
// (output_text.done) and the reasoning items (output_item.done): a second
// reading independent of the adapter's delta handling.
type streamOracle struct {
	text      string
	reasoning []recordedItem
}

func oracleOf(t *testing.T, body string) streamOracle {
	t.Helper()
	var o streamOracle
	for _, line := range strings.Split(body, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type string       `json:"type"`
			Text string       `json:"text"`
			Item recordedItem `json:"item"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("recorded event is not JSON: %v", err)
		}
		switch {
		case ev.Type == "response.output_text.done":
			o.text += ev.Text
		case ev.Type == "response.output_item.done" && ev.Item.Type == "reasoning":
			o.reasoning = append(o.reasoning, ev.Item)
		}
	}
	return o
}

func TestResponsesCassettes(t *testing.T) {
	for _, dir := range []string{"responses"} {
		names, cs := sortedCassettes(t, dir)
		for _, name := range names {
			c := cs[name]
			t.Run(dir+"/"+name, func(t *testing.T) {
				if !strings.Contains(name, "streaming") {
					responsesRequestShapes(t, c)
					return
				}
				replayResponses(t, dir+"/"+name, c)
			})
		}
	}
}

func responsesRequestShapes(t *testing.T, c *llmtest.Cassette) {
	for i, in := range c.Interactions {
		s := llmtest.NewTestServer(t, llmtest.ResponsesTextReply("ok", 1, 1))
		if _, err := run(t, responsesFor(s), responsesRequestFrom(t, in.Request.Body)); err != nil {
			t.Fatalf("interaction %d: %v", i, err)
		}
		sameShape(t, "request "+itoa(i), ourShape(t, s.Requests()[0].Body), responsesShapeOf(t, in.Request.Body))
	}
}

func replayResponses(t *testing.T, name string, c *llmtest.Cassette) {
	s := llmtest.NewTestServer(t, c.Replies()...)
	p := responsesFor(s)
	rec := c.Interactions
	req := responsesRequestFrom(t, rec[0].Request.Body)

	evs, err := run(t, p, req)
	if err != nil {
		t.Fatalf("answer 0: %v", err)
	}
	checkUsage(t, name, 0, evs)
	oracle := oracleOf(t, rec[0].Response.Body)
	checkReasoning(t, evs, oracle)
	if got := response(evs).Message.Text(); got != oracle.text {
		t.Errorf("answer 0 text = %q, want %q", got, oracle.text)
	}
	sent := s.Requests()
	sameShape(t, "request 0", ourShape(t, sent[0].Body), responsesShapeOf(t, rec[0].Request.Body))
	if inc := parseRecordedResponses(t, string(sent[0].Body)).Include; !slices.Equal(inc, []string{"reasoning.encrypted_content"}) {
		t.Errorf("include = %v; gpt-5-mini reasons, so its encrypted reasoning must be asked for", inc)
	}
	if len(rec) == 1 {
		checkFinal(t, name, evs)
		return
	}

	results := map[string]string{}
	for _, it := range parseRecordedResponses(t, rec[1].Request.Body).Input {
		if it.Type == "function_call_output" {
			results[it.CallID] = it.Output
		}
	}
	evs2, err := run(t, p, followUp(t, req, response(evs).Message, results))
	if err != nil {
		t.Fatalf("answer 1: %v", err)
	}
	sent = s.Requests()
	sameShape(t, "follow-up request", ourShape(t, sent[1].Body), responsesShapeOf(t, rec[1].Request.Body))
	checkReasoningEcho(t, sent[1].Body, oracle)
	checkUsage(t, name, 1, evs2)
	oracle2 := oracleOf(t, rec[1].Response.Body)
	checkReasoning(t, evs2, oracle2)
	if got := response(evs2).Message.Text(); got != oracle2.text {
		t.Errorf("answer 1 text = %q, want %q", got, oracle2.text)
	}
	checkFinal(t, name, evs2)
	llmtest.CheckResponses(t, sent, c.Replies()...)
	llmtest.CheckAppendOnly(t, sent)
}

// checkReasoning: every reasoning item that carried encrypted content or
// a summary became one thinking block with the same id, content and
// summary; empty ones (no include asked) became none.
func checkReasoning(t *testing.T, evs []llm.Event, o streamOracle) {
	t.Helper()
	var want []recordedItem
	for _, r := range o.reasoning {
		if r.EncryptedContent != "" || len(r.Summary) > 0 {
			want = append(want, r)
		}
	}
	got := ofType(evs, llm.EventThinkingEnd)
	if len(got) != len(want) {
		t.Fatalf("thinking blocks = %d, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i].Thinking
		var sum []string
		for _, s := range w.Summary {
			sum = append(sum, s.Text)
		}
		if g.ID != w.ID || g.Signature != w.EncryptedContent || !slices.Equal(g.Summary, sum) || g.Provider != ProviderResponses {
			t.Errorf("thinking %d = {%s %d bytes %q}, want {%s %d bytes %q}", i, g.ID, len(g.Signature), g.Summary, w.ID, len(w.EncryptedContent), sum)
		}
		if g.Text != strings.Join(sum, "\n\n") {
			t.Errorf("thinking %d text = %q", i, g.Text)
		}
	}
}

// checkReasoningEcho: the follow-up carries each encrypted reasoning item
// of the first answer, unchanged, right before that answer's calls.
func checkReasoningEcho(t *testing.T, body []byte, o streamOracle) {
	t.Helper()
	items := parseRecordedResponses(t, string(body)).Input
	var echoed []recordedItem
	for i, it := range items {
		if it.Type != "reasoning" {
			continue
		}
		echoed = append(echoed, it)
		if i+1 >= len(items) || items[i+1].Type != "function_call" {
			t.Errorf("reasoning item %s is not followed by its function call", it.ID)
		}
	}
	var want []recordedItem
	for _, r := range o.reasoning {
		if r.EncryptedContent != "" {
			want = append(want, r)
		}
	}
	if len(echoed) != len(want) {
		t.Fatalf("echoed %d reasoning items, want %d", len(echoed), len(want))
	}
	for i := range want {
		if echoed[i].ID != want[i].ID || echoed[i].EncryptedContent != want[i].EncryptedContent || len(echoed[i].Summary) != len(want[i].Summary) {
			t.Errorf("reasoning %d echoed as %s (%d bytes), want %s (%d bytes)", i, echoed[i].ID, len(echoed[i].EncryptedContent), want[i].ID, len(want[i].EncryptedContent))
		}
	}
}

package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// The fuzz targets feed arbitrary bytes to the adapters as the SSE body
// of a 200 answer. Whatever arrives, a stream must end either with one
// EventStop or with one classified *llm.Error, never panic or hang, and
// never hand out a tool call with empty arguments. `go test` runs the
// seeds only; fuzz with
//
//	go test ./llm/openai -run '^$' -fuzz FuzzChatStream -fuzztime 60s

func FuzzChatStream(f *testing.F) {
	seedCassettes(f, "chat")
	for _, s := range []string{
		llmtest.ChatReply(llmtest.ChatReasoning("r"), llmtest.ChatText("t"), llmtest.ChatToolCall("c", "f", `{"a":1}`), llmtest.ChatFinish("tool_calls"), llmtest.ChatUsage(1, 1)).Body,
		llmtest.ChatText("no finish"),
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":-1}]},\"finish_reason\":\"stop\"}]}\n\n",
		"data: {\"error\":\"x\"}\n\n",
		"data: [DONE]\n\n",
		"data: {\n\n",
		": comment only\n\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzOne(t, NewChat(Options{Name: "fuzz", HTTPClient: bodyClient(body)}))
	})
}

func FuzzResponsesStream(f *testing.F) {
	seedCassettes(f, "responses")
	for _, s := range []string{
		llmtest.ResponsesReply(llmtest.ResponsesReasoning("rs", "e", "s"), llmtest.ResponsesText("t"), llmtest.ResponsesFunctionCall("c", "f", `{}`), llmtest.ResponsesCompleted(1, 1)).Body,
		llmtest.ResponsesReply(llmtest.ResponsesText("cut")).Body,
		llmtest.ResponsesReply(llmtest.ResponsesFailed("server_error", "x")).Body,
		"event: error\ndata: {\"type\":\"error\"}\n\n",
		"data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"function_call\"}}\n\ndata: {\"type\":\"response.completed\",\"response\":{}}\n\n",
		"data: {\"type\":\"response.function_call_arguments.delta\"}\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzOne(t, NewResponses(Options{Name: "fuzz", HTTPClient: bodyClient(body)}))
	})
}

// seedCassettes adds every streamed answer of the folders' cassettes.
func seedCassettes(f *testing.F, dirs ...string) {
	for _, d := range dirs {
		for _, c := range llmtest.Cassettes(f, "testdata/cassettes/"+d) {
			for _, in := range c.Interactions {
				if strings.HasPrefix(in.Response.Body, "data:") || strings.HasPrefix(in.Response.Body, "event:") {
					f.Add([]byte(in.Response.Body))
				}
			}
		}
	}
}

func fuzzOne(t *testing.T, p llm.Provider) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		var evs []llm.Event
		var streamErr error
		for ev, err := range p.Stream(ctx, userReq("hi")) {
			if streamErr != nil {
				t.Errorf("event after the error: %+v", ev)
			}
			if err != nil {
				streamErr = err
				continue
			}
			evs = append(evs, ev)
			if ev.Type == llm.EventToolCallEnd && (ev.ToolCall == nil || len(strings.TrimSpace(string(ev.ToolCall.Args))) == 0) {
				t.Errorf("tool call without arguments: %+v", ev.ToolCall)
			}
		}
		stops := len(ofType(evs, llm.EventStop))
		switch {
		case streamErr != nil:
			var le *llm.Error
			if !errors.As(streamErr, &le) {
				t.Errorf("unclassified error %T: %v", streamErr, streamErr)
			}
			if stops != 0 {
				t.Errorf("a failed stream also stopped")
			}
		case stops != 1 || evs[len(evs)-1].Type != llm.EventStop:
			t.Errorf("stream ended without error and with %d stop events (last %v)", stops, kinds(evs))
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // hang guard
		cancel()
		t.Fatal("the stream did not end within 10s on a finite body")
	}
}

func bodyClient(body []byte) *http.Client {
	return &http.Client{Transport: bodyTransport{contentType: "text/event-stream", body: body}}
}

package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as a stdio MCP server (GODWIT_MCP_TEST_SERVER)
// and as the client the conformance suite drives
// (GODWIT_MCP_CONFORMANCE_CLIENT), so the tests need nothing but Go.
func TestMain(m *testing.M) {
	switch {
	case os.Getenv("GODWIT_MCP_TEST_SERVER") != "":
		if err := testServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case os.Getenv("GODWIT_MCP_CONFORMANCE_CLIENT") != "":
		os.Exit(conformanceClient(os.Args[len(os.Args)-1]))
	}
	os.Exit(m.Run())
}

func schema(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if required == nil {
		req = []byte("[]")
	}
	return json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
}

// testServer offers one tool of each kind the client must handle.
func testServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echo the message back.",
		InputSchema: schema(`"message":{"type":"string"}`, "message"), Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var a struct{ Message string }
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, err
			}
			return text("echo: " + a.Message), nil
		})
	s.AddTool(&sdk.Tool{Name: "write_note", Description: "Store a note.", InputSchema: schema(`"note":{"type":"string"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("stored"), nil })
	s.AddTool(&sdk.Tool{Name: "picture", Description: "A picture and a caption.", InputSchema: schema(``)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "a red dot"},
				&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 2048)},
			}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "fail", Description: "Always fails.", InputSchema: schema(``)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "disk on fire"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "grow", Description: "Adds the tool extra.", InputSchema: schema(``)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			s.AddTool(&sdk.Tool{Name: "extra", Description: "Added later.", InputSchema: schema(``)},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("extra"), nil })
			return text("grown"), nil
		})
	s.AddTool(&sdk.Tool{Name: "exit", Description: "Ends the server process.", InputSchema: schema(``)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "exiting on request")
			os.Exit(3)
			return nil, nil
		})
	return s
}

// httpServer serves testServer over streamable HTTP, refusing requests
// without the bearer token.
func httpServer(token string) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return testServer() }, nil)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

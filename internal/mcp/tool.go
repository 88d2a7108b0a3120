package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// Limits on what a server puts in front of the model.
const (
	// MaxDescription caps a tool's description: servers write long ones,
	// and the tool table is paid for on every request.
	MaxDescription = 1024
	// MaxResult caps one result's text.
	MaxResult = 24 << 10
	// DefaultCallTimeout bounds one tool call unless the server's
	// timeout_s says otherwise.
	DefaultCallTimeout = 2 * time.Minute
)

// Prefix starts every MCP tool's name.
const Prefix = "mcp__"

// maxName is the longest tool name the providers accept.
const maxName = 64

// ToolName returns the name godwit offers a server's tool under:
// mcp__<server>__<tool>, with characters the providers refuse replaced by
// '_' and, past 64 characters, cut and suffixed with a short hash so that
// names stay unique.
func ToolName(server, name string) string {
	full := Prefix + sanitize(server) + "__" + sanitize(name)
	if len(full) <= maxName {
		return full
	}
	sum := sha256.Sum256([]byte(server + "\x00" + name))
	h := hex.EncodeToString(sum[:4])
	return full[:maxName-len(h)-1] + "_" + h
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		ok := c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !ok {
			b[i] = '_'
		}
	}
	return string(b)
}

// Tool is one server tool offered to the model. It implements tool.Tool
// and tool.Accessor.
type Tool struct {
	srv      *server
	name     string // godwit's name
	remote   string // the server's name
	spec     llm.ToolSpec
	readOnly bool
}

func newTool(srv *server, t *sdk.Tool) (*Tool, error) {
	schema, err := toolSchema(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("mcp: server %q tool %q: %w", srv.name, t.Name, err)
	}
	name := ToolName(srv.name, t.Name)
	return &Tool{
		srv:      srv,
		name:     name,
		remote:   t.Name,
		spec:     llm.ToolSpec{Name: name, Description: describe(t), Schema: schema},
		readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint,
	}, nil
}

// describe returns the tool's description, capped, with the title when
// the server gave no description.
func describe(t *sdk.Tool) string {
	d := strings.TrimSpace(t.Description)
	if d == "" {
		d = strings.TrimSpace(t.Title)
	}
	if d == "" && t.Annotations != nil {
		d = strings.TrimSpace(t.Annotations.Title)
	}
	if len(d) > MaxDescription {
		d = strings.ToValidUTF8(d[:MaxDescription-3], "") + "..."
	}
	return d
}

// toolSchema returns the input schema as JSON, an object schema always,
// without "$schema" (tokens that tell the model nothing, and a keyword
// some providers refuse).
func toolSchema(in any) (json.RawMessage, error) {
	var m map[string]any
	switch v := in.(type) {
	case nil:
	case map[string]any:
		m = v
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("input schema is not a JSON object: %w", err)
		}
	}
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		if k != "$schema" {
			out[k] = v
		}
	}
	if _, ok := out["type"]; !ok {
		out["type"] = "object"
	}
	return json.Marshal(out)
}

// Name implements tool.Tool.
func (t *Tool) Name() string { return t.name }

// Spec implements tool.Tool.
func (t *Tool) Spec() llm.ToolSpec { return t.spec }

// Server returns the name of the server the tool belongs to.
func (t *Tool) Server() string { return t.srv.name }

// ReadOnly reports whether the server marked the tool readOnlyHint.
func (t *Tool) ReadOnly() bool { return t.readOnly }

// Access implements tool.Accessor: a tool the server did not mark
// read-only may change anything the server can reach, so it needs
// approval like a write.
func (t *Tool) Access(args json.RawMessage) (tool.Access, error) {
	return tool.Access{
		Mutates: !t.readOnly,
		Summary: t.name + " " + oneLine(string(args), 80),
		Preview: previewArgs(args),
	}, nil
}

// Run implements tool.Tool.
func (t *Tool) Run(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	cs, err := t.srv.session()
	if err != nil {
		return tool.Result{}, &tool.ToolError{Code: tool.CodeFailed, Message: err.Error(),
			Remedy: "Do not retry; tell the user the MCP server is down.", Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, t.srv.timeout)
	defer cancel()
	params := &sdk.CallToolParams{Name: t.remote, Arguments: json.RawMessage(llm.ArgsOrEmpty(args))}
	// A progress token asks the server for notifications/progress, which
	// reach whoever runs the call (the chat's tool line, run --json).
	token, drop := t.srv.progress.add(func(p tool.Progress) { tool.ReportProgress(ctx, p) })
	defer drop()
	params.SetProgressToken(token)
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		return tool.Result{}, callError(t, err)
	}
	text := resultText(res)
	if res.IsError {
		if text == "" {
			text = "the tool reported an error without a message"
		}
		return tool.Result{}, &tool.ToolError{Code: tool.CodeFailed, Message: text}
	}
	return tool.Result{Content: text}, nil
}

// callError turns a failed call into what the model can act on.
func callError(t *Tool, err error) error {
	var we *jsonrpc.Error
	switch {
	case errors.As(err, &we) && we.Code == jsonrpc.CodeInvalidParams:
		return &tool.ToolError{Code: tool.CodeBadArgs, Message: we.Message,
			Remedy: "Send arguments that match the tool's schema.", Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &tool.ToolError{Code: tool.CodeTimeout, Message: fmt.Sprintf("%s did not answer within %s", t.name, t.srv.timeout),
			Remedy: "Try a smaller request; the user can raise timeout_s for this server.", Err: err}
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, sdk.ErrConnectionClosed):
		return &tool.ToolError{Code: tool.CodeFailed, Message: fmt.Sprintf("MCP server %q closed the connection", t.srv.name),
			Remedy: "Do not retry; tell the user the MCP server stopped.", Err: err}
	}
	return &tool.ToolError{Code: tool.CodeFailed, Message: fmt.Sprintf("MCP server %q: %v", t.srv.name, err), Err: err}
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return strings.ToValidUTF8(s[:n], "") + "..."
	}
	return s
}

func previewArgs(args json.RawMessage) string {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return ""
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil || len(b) <= 80 {
		return ""
	}
	if len(b) > 2048 {
		return string(b[:2048]) + "\n..."
	}
	return string(b)
}

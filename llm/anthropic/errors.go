package anthropic

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/internal/retryafter"
)

// errUnparseable marks a stream event that is not the JSON it should be.
var errUnparseable = errors.New("unparseable event")

// failed turns why a stream ended before message_stop into the error
// Stream yields: err is nil for a clean end; midStream says whether any
// event had arrived.
func (p *provider) failed(ctx context.Context, err error, midStream bool) error {
	var le *llm.Error
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("anthropic: %w", ctx.Err())
	case err == nil:
		// A clean EOF before message_stop: the connection was closed mid-answer.
		return &llm.Error{Kind: llm.KindRetryable, Provider: p.name, Message: "stream ended before message_stop (connection closed mid-answer)"}
	case errors.As(err, &le):
		return le
	case errors.Is(err, errUnparseable), errors.Is(err, bufio.ErrTooLong):
		return &llm.Error{Kind: llm.KindMalformed, Provider: p.name, Message: "stream: " + err.Error(), Err: err}
	}
	// What is left failed below HTTP: a refused or reset connection, a
	// timeout, a body cut short (unexpected EOF). Trying again may work.
	what := "request failed: "
	if midStream {
		what = "stream cut mid-way: "
	}
	return &llm.Error{Kind: llm.KindRetryable, Provider: p.name, Message: what + err.Error(), Err: err}
}

// fromAPIError classifies an error response (status and header set) or an
// error event inside a stream (status 0), from the API's error object:
// {"type":"error","error":{"type":"overloaded_error","message":"..."}}.
func fromAPIError(provider string, status int, h http.Header, body []byte) *llm.Error {
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	typ, msg := e.Error.Type, e.Error.Message
	if msg == "" {
		msg = strings.TrimSpace(string(body))
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
	}
	if typ != "" {
		msg = typ + ": " + msg
	}
	out := &llm.Error{Provider: provider, StatusCode: status, Message: msg}
	if status < 400 {
		out.StatusCode = 0
		out.Message = "stream error: " + msg
	}
	if h != nil {
		out.RetryAfter = retryafter.Parse(h, time.Now())
	}
	out.Kind = errorKind(status, typ, e.Error.Message)
	return out
}

func errorKind(status int, typ, msg string) llm.Kind {
	switch {
	case typ == "request_too_large" || status == http.StatusRequestEntityTooLarge:
		return llm.KindContextTooLong
	case typ == "overloaded_error" || typ == "rate_limit_error" || typ == "api_error" || typ == "timeout_error",
		status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500:
		return llm.KindRetryable // 529 is Anthropic's "overloaded"
	case typ == "authentication_error" || typ == "permission_error" || status == http.StatusUnauthorized || status == http.StatusForbidden:
		return llm.KindAuth
	case contextTooLong(msg):
		return llm.KindContextTooLong
	case typ == "invalid_request_error" || typ == "not_found_error" || status == http.StatusBadRequest ||
		status == http.StatusNotFound || status == http.StatusUnprocessableEntity:
		return llm.KindBadRequest
	}
	return llm.KindOther // e.g. 402 billing_error: no retry will fix it
}

// contextTooLong recognises the API's wordings for a prompt that does not
// fit the model's window.
func contextTooLong(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"prompt is too long", "exceed context limit", "context window", "context length", "too many tokens"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

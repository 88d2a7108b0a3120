package anthropic

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/internal/retryafter"
)

// classify turns a failure of the HTTP call or of the stream into an
// *llm.Error; midStream says whether any event had arrived. The caller has
// already ruled out a cancelled context.
func classify(provider string, err error, midStream bool) error {
	var api *sdk.Error
	var ct *contentTypeError
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &api):
		return fromAPIError(provider, api)
	case errors.As(err, &ct):
		return &llm.Error{Kind: llm.KindMalformed, Provider: provider, Message: ct.Error(), Err: err}
	case errors.As(err, &syn), errors.As(err, &typ), errors.Is(err, bufio.ErrTooLong), strings.HasPrefix(err.Error(), "apijson:"):
		return &llm.Error{Kind: llm.KindMalformed, Provider: provider, Message: "stream: unparseable event: " + err.Error(), Err: err}
	case strings.HasPrefix(err.Error(), "received error while streaming:"):
		// An error event whose payload the SDK could not read.
		return &llm.Error{Kind: llm.KindRetryable, Provider: provider, Message: err.Error(), Err: err}
	}
	// What is left failed below HTTP: a refused or reset connection, a
	// timeout, a body cut short (unexpected EOF). Trying again may work.
	what := "request failed: "
	if midStream {
		what = "stream cut mid-way: "
	}
	return &llm.Error{Kind: llm.KindRetryable, Provider: provider, Message: what + err.Error(), Err: err}
}

// fromAPIError classifies an error response, or an error event inside a
// stream (which arrives with the stream's status, 200).
func fromAPIError(provider string, e *sdk.Error) *llm.Error {
	typ := string(e.Type())
	msg := e.Message
	if msg == "" {
		msg = strings.TrimSpace(e.RawJSON())
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
	}
	if typ != "" {
		msg = typ + ": " + msg
	}
	out := &llm.Error{Provider: provider, StatusCode: e.StatusCode, Message: msg, Err: e}
	if e.StatusCode < 400 {
		out.StatusCode = 0
		out.Message = "stream error: " + msg
	}
	if e.Response != nil {
		out.RetryAfter = retryafter.Parse(e.Response.Header, time.Now())
	}
	out.Kind = errorKind(e.StatusCode, typ, e.Message)
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

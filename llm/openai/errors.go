package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/internal/retryafter"
	"github.com/godwit/godwit/llm/internal/sse"
)

// maxErrorBody caps how much of an error body is read.
const maxErrorBody = 64 << 10

// vendorError is the error object a server put in a body or an event.
// OpenAI and most compatibles: {"error":{"message","type","code"}};
// Ollama: {"error":"text"}; vLLM: {"object":"error","message",...};
// Responses "error" events and response.error: flat {"code","message"}.
type vendorError struct {
	Message string
	Code    string
	Type    string
}

func parseVendorError(data []byte) vendorError {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return vendorError{}
	}
	if raw, ok := top["error"]; ok && string(raw) != "null" {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return vendorError{Message: s}
		}
		return flatVendorError(raw)
	}
	return flatVendorError(data)
}

func flatVendorError(data []byte) vendorError {
	var o struct {
		Message json.RawMessage `json:"message"`
		Code    json.RawMessage `json:"code"`
		Type    json.RawMessage `json:"type"`
	}
	if json.Unmarshal(data, &o) != nil {
		return vendorError{}
	}
	return vendorError{Message: jsonScalar(o.Message), Code: jsonScalar(o.Code), Type: jsonScalar(o.Type)}
}

// jsonScalar renders a JSON string or number as text ("" for anything else):
// vendors send codes as "context_length_exceeded" or as 429.
func jsonScalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// contextPhrases are how the servers we know say the prompt does not fit.
var contextPhrases = []string{
	"context_length_exceeded", "exceed_context_size", "maximum context length",
	"context length", "context size", "context window", "prompt is too long",
	"input is too long", "reduce the length", "too many tokens", "token limit",
	"exceeds max length", "exceeds the maximum",
}

func (v vendorError) contextTooLong() bool {
	s := strings.ToLower(v.Code + " " + v.Type + " " + v.Message)
	for _, p := range contextPhrases {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// httpError classifies a non-2xx answer.
func httpError(provider string, status int, h http.Header, body []byte, now time.Time) *llm.Error {
	v := parseVendorError(body)
	e := &llm.Error{Provider: provider, StatusCode: status, Message: errorText(v, body, status)}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = llm.KindAuth
	case status == http.StatusTooManyRequests && v.Code == "insufficient_quota":
		// Out of credit: waiting does not help; the vendor's text says to
		// check the plan and billing.
		e.Kind = llm.KindOther
	case status != http.StatusTooManyRequests && (v.contextTooLong() || status == http.StatusRequestEntityTooLarge):
		e.Kind = llm.KindContextTooLong
	case status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500:
		e.Kind = llm.KindRetryable
		e.RetryAfter = retryafter.Parse(h, now)
	default:
		e.Kind = llm.KindBadRequest
	}
	return e
}

// streamError classifies an error the server sent inside a 200 stream.
// The request was accepted, so unless the vendor names a cause we know,
// the failure is on the server's side and worth retrying.
func streamError(provider string, v vendorError) *llm.Error {
	e := &llm.Error{Provider: provider, Message: errorText(v, nil, 0)}
	code := strings.ToLower(v.Code + " " + v.Type)
	switch {
	case v.contextTooLong():
		e.Kind = llm.KindContextTooLong
	case strings.Contains(code, "insufficient_quota"):
		e.Kind = llm.KindOther
	case strings.Contains(code, "auth") || strings.Contains(code, "api_key") || v.Code == "401" || v.Code == "403":
		e.Kind = llm.KindAuth
	case strings.Contains(code, "invalid") || v.Code == "400":
		e.Kind = llm.KindBadRequest
	default:
		e.Kind = llm.KindRetryable
	}
	return e
}

func errorText(v vendorError, body []byte, status int) string {
	msg := v.Message
	if msg == "" {
		msg = strings.Join(strings.Fields(string(body)), " ")
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
	}
	if msg == "" && status != 0 {
		msg = http.StatusText(status)
	}
	if v.Code != "" && !strings.Contains(msg, v.Code) {
		msg += " (" + v.Code + ")"
	}
	return msg
}

// checkResponse turns a failed HTTP answer into a classified *llm.Error
// while the headers and body are at hand, and returns the body of one
// that streams.
func checkResponse(provider string, res *http.Response, now time.Time) (io.ReadCloser, error) {
	if res.StatusCode >= 300 {
		body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		_ = res.Body.Close()
		return nil, httpError(provider, res.StatusCode, res.Header, body, now)
	}
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if mt == "application/json" {
		// A server that ignores stream:true answers one JSON object, some
		// errors too with status 200; a mislabelled stream is read as one.
		br := bufio.NewReader(res.Body)
		head, _ := br.Peek(8)
		head = bytes.TrimLeft(head, " \t\r\n")
		if bytes.HasPrefix(head, []byte("data:")) || bytes.HasPrefix(head, []byte("event:")) || bytes.HasPrefix(head, []byte(":")) {
			return readCloser{br, res.Body}, nil
		}
		body, _ := io.ReadAll(io.LimitReader(br, maxErrorBody))
		_ = res.Body.Close()
		if v := parseVendorError(body); v.Message != "" {
			return nil, streamError(provider, v)
		}
		return nil, &llm.Error{Kind: llm.KindMalformed, Provider: provider, StatusCode: res.StatusCode,
			Message: "the server answered with one JSON object instead of an event stream; check that the base URL points at an endpoint that supports stream:true"}
	}
	// Anything else (text/plain, none, even HTML) is read as a stream:
	// what is not one ends without its final event (errCut).
	return res.Body, nil
}

// errCut is why a stream that ends without its final event is retryable:
// the vendor always sends one, so the connection was cut (a proxy timeout,
// a dropped socket), and the same request will most likely succeed.
const errCut = "the stream ended before the model finished (no final event); the connection was probably cut, retrying usually helps"

// classify turns a failure to send or read into the error Stream yields.
func classify(ctx context.Context, provider string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var le *llm.Error
	if errors.As(err, &le) {
		return le
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) || errors.Is(err, bufio.ErrTooLong) {
		return &llm.Error{Kind: llm.KindMalformed, Provider: provider,
			Message: "an event in the stream is not valid JSON; the server does not speak this wire format, check the base URL and the adapter kind", Err: err}
	}
	// The network: *url.Error before an answer; after, the body broke off.
	msg := fmt.Sprintf("the stream broke off: %v; retrying usually helps", err)
	var ue *url.Error
	var idle *sse.IdleError
	switch {
	case errors.As(err, &idle):
		msg = idle.Error() + "; the connection counts as dropped, and retrying usually helps"
	case errors.As(err, &ue):
		msg = fmt.Sprintf("could not reach the server: %v; check the base URL and that the server is running", ue.Err)
	}
	return &llm.Error{Kind: llm.KindRetryable, Provider: provider, Message: msg, Err: err}
}

// eventError builds the error for a vendor error carried in an event
// payload (Responses "error" and "response.failed").
func eventError(provider string, data []byte) error {
	v := parseVendorError(data)
	if v.Message == "" && v.Code == "" {
		v.Message = string(bytes.TrimSpace(data))
	}
	return streamError(provider, v)
}

type readCloser struct {
	io.Reader
	io.Closer
}

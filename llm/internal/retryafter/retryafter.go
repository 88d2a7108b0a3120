// Package retryafter reads the wait a provider asks for before the next
// attempt, from the headers the vendors send: retry-after-ms (OpenAI,
// Anthropic), else Retry-After in seconds or as an HTTP date, for the
// adapters under llm.
//
// It imports none of godwit's packages.
package retryafter

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Parse returns the wait h asks for, as of now; 0 when absent,
// unreadable or already past.
func Parse(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

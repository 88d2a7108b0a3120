package llm

import (
	"errors"
	"fmt"
	"time"
)

// Sentinels for errors.Is. An *Error matches the one its Kind names.
var (
	// ErrRetryable: rate limited, overloaded, a 5xx, a reset connection or
	// a stream cut mid-way. Trying again later may succeed.
	ErrRetryable = errors.New("llm: temporary failure")
	// ErrContextTooLong: the request is larger than the model's window. The
	// engine answers it by starting a new segment, not by failing the turn.
	ErrContextTooLong = errors.New("llm: context too long")
	// ErrAuth: the key is missing, wrong or lacks access.
	ErrAuth = errors.New("llm: authentication failed")
	// ErrBadRequest: the vendor rejected the request's shape.
	ErrBadRequest = errors.New("llm: bad request")
	// ErrMalformed: the vendor's answer could not be parsed.
	ErrMalformed = errors.New("llm: malformed response")
)

// Kind classifies an Error.
type Kind int

const (
	KindOther Kind = iota
	KindRetryable
	KindContextTooLong
	KindAuth
	KindBadRequest
	KindMalformed
)

var sentinels = [...]error{KindRetryable: ErrRetryable, KindContextTooLong: ErrContextTooLong,
	KindAuth: ErrAuth, KindBadRequest: ErrBadRequest, KindMalformed: ErrMalformed}

func (k Kind) sentinel() error {
	if k < 0 || int(k) >= len(sentinels) {
		return nil
	}
	return sentinels[k]
}

// Error is a classified provider failure.
type Error struct {
	Kind     Kind
	Provider string
	// StatusCode is the HTTP status, 0 when none was received.
	StatusCode int
	// Message is the vendor's own explanation, when it gave one.
	Message string
	// RetryAfter is the vendor's requested wait (Retry-After), 0 if none.
	RetryAfter time.Duration
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	s := "llm"
	if e.Provider != "" {
		s += ": " + e.Provider
	}
	if e.StatusCode != 0 {
		s += fmt.Sprintf(": HTTP %d", e.StatusCode)
	}
	switch {
	case e.Message != "":
		s += ": " + e.Message
	case e.Err != nil:
		s += ": " + e.Err.Error()
	default:
		if sen := e.Kind.sentinel(); sen != nil {
			s += ": " + sen.Error()[len("llm: "):]
		}
	}
	return s
}

// Is reports whether target is the sentinel of e's Kind.
func (e *Error) Is(target error) bool {
	s := e.Kind.sentinel()
	return s != nil && target == s
}

func (e *Error) Unwrap() error { return e.Err }

// RetryAfter reports whether err is retryable and, if so, the wait the
// vendor asked for (0 when it named none).
func RetryAfter(err error) (time.Duration, bool) {
	if !errors.Is(err, ErrRetryable) {
		return 0, false
	}
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter, true
	}
	return 0, true
}

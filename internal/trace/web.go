package trace

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"strings"

	"github.com/godwit/godwit/internal/store"
)

//go:embed web/index.html web/app.js web/style.css
var webFS embed.FS

// Handler serves a read-only page of session sessionID (a full id) from
// st, and the JSON it is drawn from, under path, "/TOKEN/" with a random
// token of its own:
//
//	GET TOKEN/             the page (HTML, JS and CSS embedded; no external assets)
//	GET TOKEN/api/trace    the View: session, report, turns, steps, tool calls
//	GET TOKEN/api/report   the Report alone
//	GET TOKEN/api/events   the stored events, as a JSON array
//
// The token is the page's key, as Jupyter's is: any local user can find
// the port, and the trace may hold what a session read. Every request's
// token is compared in constant time; a request without it gets 404.
// The page's own requests are relative, so they carry it.
//
// The page polls api/trace every two seconds and redraws when its ETag
// changes, so it follows a live session. The ETag is the session's
// store.SessionStamp (a few index lookups), so a poll while nothing
// changed is answered 304 before anything is loaded; it also names this
// Handler, so a page left open across a restart loads afresh. Requests
// whose Host is a name other than localhost are refused, which defeats
// DNS rebinding: an IP address or localhost is what a user types.
// Nothing is ever written.
func Handler(st Record, sessionID string) (h http.Handler, path string) {
	var nonce [4]byte
	var token [24]byte
	rand.Read(nonce[:]) // never fails (crypto/rand documents it)
	rand.Read(token[:])
	hd := &handler{st: st, id: sessionID, nonce: hex.EncodeToString(nonce[:])}
	mux := http.NewServeMux()
	web, _ := fs.Sub(webFS, "web") // a directory the embed holds
	mux.Handle("GET /", http.FileServerFS(web))
	mux.HandleFunc("GET /api/trace", hd.trace)
	mux.HandleFunc("GET /api/report", hd.report)
	mux.HandleFunc("GET /api/events", hd.events)
	key := base64.RawURLEncoding.EncodeToString(token[:])
	return guard(key, mux), "/" + key + "/"
}

type handler struct {
	st    Record
	id    string
	nonce string // names this handler in its ETags
}

// guard refuses foreign Host names and requests without the token as
// their path's first part, which it strips; it sets headers that keep
// the page to its own assets.
func guard(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.Trim(host, "[]")
		if host != "localhost" && net.ParseIP(host) == nil {
			http.Error(w, "trace: refusing Host "+r.Host+"; open the page by IP address or localhost", http.StatusForbidden)
			return
		}
		got, rest, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 || !ok {
			http.Error(w, "trace: not found; open the address `godwit inspect trace --web` printed, token included", http.StatusNotFound)
			return
		}
		r = r.Clone(r.Context())
		r.URL.Path, r.URL.RawPath = "/"+rest, ""
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-cache")
		next.ServeHTTP(w, r)
	})
}

func (h *handler) trace(w http.ResponseWriter, r *http.Request) {
	h.serveJSON(w, r, func(ctx context.Context) (any, error) {
		t, err := Load(ctx, h.st, h.id)
		if err != nil {
			return nil, err
		}
		return NewView(t), nil
	})
}

func (h *handler) report(w http.ResponseWriter, r *http.Request) {
	h.serveJSON(w, r, func(ctx context.Context) (any, error) {
		t, err := LoadUnordered(ctx, h.st, h.id)
		if err != nil {
			return nil, err
		}
		return Analyze(t), nil
	})
}

func (h *handler) events(w http.ResponseWriter, r *http.Request) {
	h.serveJSON(w, r, func(ctx context.Context) (any, error) {
		rows, err := h.st.Events(ctx, h.id)
		if err != nil {
			return nil, err
		}
		out := make([]json.RawMessage, 0, len(rows))
		for _, e := range rows {
			if json.Valid(e.Data) {
				out = append(out, e.Data)
			}
		}
		return out, nil
	})
}

// serveJSON answers 304 when the client's ETag is the session's current
// stamp, and otherwise with the JSON of what build returns. The stamp is
// read first: a write landing while build loads makes the next poll's
// stamp differ, so the page never keeps a stale view under a fresh tag.
func (h *handler) serveJSON(w http.ResponseWriter, r *http.Request, build func(context.Context) (any, error)) {
	stamp, err := h.st.SessionStamp(r.Context(), h.id)
	if err != nil {
		h.fail(w, err)
		return
	}
	sum := sha256.Sum256([]byte(stamp))
	etag := `"` + h.nonce + "-" + hex.EncodeToString(sum[:12]) + `"`
	if matches(r.Header.Get("If-None-Match"), etag) {
		w.Header().Set("ETag", etag)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	v, err := build(r.Context())
	if err != nil {
		h.fail(w, err)
		return
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		h.fail(w, err)
		return
	}
	w.Header().Set("ETag", etag)
	w.Header().Set("Content-Type", "application/json")
	w.Write(buf.Bytes())
}

// matches reports whether an If-None-Match header names etag (a list of
// tags, weak or strong, or "*").
func matches(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == etag || tag == "*" {
			return true
		}
	}
	return false
}

func (h *handler) fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	if errors.Is(err, store.ErrNotFound) {
		code = http.StatusNotFound
	}
	http.Error(w, err.Error(), code)
}

package trace

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"

	"github.com/godwit/godwit/store"
)

//go:embed web/index.html web/app.js web/style.css
var webFS embed.FS

// Handler serves a read-only page of session sessionID (a full id) from
// st, and the JSON it is drawn from:
//
//	GET /             the page (HTML, JS and CSS embedded; no external assets)
//	GET /api/trace    the View: session, report, turns, steps, tool calls
//	GET /api/report   the Report alone
//	GET /api/events   the stored events, as a JSON array
//
// The page polls /api/trace every two seconds and redraws when its ETag
// changes, so it follows a live session. Requests whose Host is a name
// other than localhost are refused, which defeats DNS rebinding: an IP
// address or localhost is what a user types. Nothing is ever written.
func Handler(st *store.Store, sessionID string) http.Handler {
	h := &handler{st: st, id: sessionID}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.asset("web/index.html", "text/html; charset=utf-8"))
	mux.HandleFunc("GET /app.js", h.asset("web/app.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /style.css", h.asset("web/style.css", "text/css; charset=utf-8"))
	mux.HandleFunc("GET /api/trace", h.trace)
	mux.HandleFunc("GET /api/report", h.report)
	mux.HandleFunc("GET /api/events", h.events)
	return guard(mux)
}

type handler struct {
	st *store.Store
	id string
}

// guard refuses foreign Host names and sets headers that keep the page
// to its own assets.
func guard(next http.Handler) http.Handler {
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
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

func (h *handler) asset(name, ctype string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := webFS.ReadFile(name)
		if err != nil {
			http.Error(w, "trace: missing asset "+name, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Cache-Control", "no-cache")
		w.Write(b)
	}
}

func (h *handler) trace(w http.ResponseWriter, r *http.Request) {
	t, err := Load(r.Context(), h.st, h.id)
	if err != nil {
		h.fail(w, err)
		return
	}
	h.writeJSON(w, r, NewView(t))
}

func (h *handler) report(w http.ResponseWriter, r *http.Request) {
	t, err := LoadUnordered(r.Context(), h.st, h.id)
	if err != nil {
		h.fail(w, err)
		return
	}
	h.writeJSON(w, r, Analyze(t))
}

func (h *handler) events(w http.ResponseWriter, r *http.Request) {
	rows, err := h.st.Events(r.Context(), h.id)
	if err != nil {
		h.fail(w, err)
		return
	}
	out := make([]json.RawMessage, 0, len(rows))
	for _, e := range rows {
		if json.Valid(e.Data) {
			out = append(out, e.Data)
		}
	}
	h.writeJSON(w, r, out)
}

// writeJSON answers with v, or 304 when the client has it already.
func (h *handler) writeJSON(w http.ResponseWriter, r *http.Request, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		h.fail(w, err)
		return
	}
	sum := sha256.Sum256(buf.Bytes())
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "no-cache")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(buf.Bytes())
}

func (h *handler) fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	if errors.Is(err, store.ErrNotFound) {
		code = http.StatusNotFound
	}
	http.Error(w, err.Error(), code)
}

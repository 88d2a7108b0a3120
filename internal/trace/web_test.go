package trace_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/trace"
)

func get(t *testing.T, url string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// serve starts the page of session id; base is its address, token
// included.
func serve(t *testing.T, st *store.Store, id string) (srv *httptest.Server, base string) {
	t.Helper()
	h, path := trace.Handler(st, id)
	srv = httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, srv.URL + path
}

func TestHandlerServesTheSession(t *testing.T) {
	st, tr := loadRecorded(t)
	_, base := serve(t, st, tr.Session.ID)

	res, body := get(t, base+"api/trace", nil)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /api/trace: %s %s", res.Status, res.Header.Get("Content-Type"))
	}
	var v trace.View
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	if v.Session.ID != tr.Session.ID || len(v.Turns) != 2 || v.Live {
		t.Fatalf("view: session %q, %d turns, live %v", v.Session.ID, len(v.Turns), v.Live)
	}
	t1 := v.Turns[0]
	if len(t1.Steps) != 11 || len(t1.Verify) != 0 {
		t.Fatalf("turn 1: %d steps, %d unplaced verify runs", len(t1.Steps), len(t1.Verify))
	}
	if after := t1.Steps[10].After; len(after) != 1 || after[0].Kind != "verify" || after[0].Failed || !strings.Contains(after[0].Detail, "ok") {
		t.Errorf("after the last step of turn 1: %+v", after)
	}
	if after := v.Turns[1].Steps[1].After; len(after) != 1 || after[0].Kind != "nudge" || !strings.Contains(after[0].Text, "unverified_write") {
		t.Errorf("after step 2 of turn 2: %+v", after)
	}
	write := t1.Steps[4]
	if len(write.Calls) != 1 || len(write.Calls[0].Parts) == 0 || write.Calls[0].Text == "" {
		t.Errorf("step 5 model calls = %+v", write.Calls)
	}
	if len(write.Tools) != 1 || write.Tools[0].Name != "file_write" || !strings.Contains(write.Tools[0].Diff, "+\treturn sum") {
		t.Errorf("step 5 tools = %+v", write.Tools)
	}
	if got := t1.Steps[0].Tools; len(got) != 2 || got[0].CallID != "c1" || got[1].CallID != "c2" {
		t.Errorf("step 1 tools not in the model's order: %+v", got)
	}
	if v.Report.ModelCalls != 15 {
		t.Errorf("report model calls = %d", v.Report.ModelCalls)
	}

	// An unchanged session answers 304 to the page's poll.
	res, _ = get(t, base+"api/trace", map[string]string{"If-None-Match": res.Header.Get("ETag")})
	if res.StatusCode != http.StatusNotModified {
		t.Errorf("poll with the same ETag: %s", res.Status)
	}

	res, body = get(t, base+"api/report", nil)
	var rep trace.Report
	if err := json.Unmarshal([]byte(body), &rep); err != nil || res.StatusCode != 200 || rep.ToolCalls != 15 {
		t.Errorf("GET /api/report: %s, %d tool calls, %v", res.Status, rep.ToolCalls, err)
	}

	_, body = get(t, base+"api/events", nil)
	var evs []agent.Event
	if err := json.Unmarshal([]byte(body), &evs); err != nil || len(evs) != len(tr.Events) {
		t.Errorf("GET /api/events: %d events (want %d), %v", len(evs), len(tr.Events), err)
	}

	for _, p := range []string{"", "app.js", "style.css"} {
		res, body := get(t, base+p, nil)
		if res.StatusCode != 200 || len(body) < 100 {
			t.Errorf("GET %s: %s, %d bytes", p, res.Status, len(body))
		}
		if strings.Contains(body, "http://") || strings.Contains(body, "https://") {
			if !strings.Contains(body, "http://www.w3.org/2000/svg") || strings.Count(body, "://") > 1 {
				t.Errorf("%s refers to an external address", p)
			}
		}
	}
}

func TestHandlerFollowsALiveSession(t *testing.T) {
	st, tr := loadRecorded(t)
	_, base := serve(t, st, tr.Session.ID)
	res, _ := get(t, base+"api/trace", nil)
	tag := res.Header.Get("ETag")

	ctx := context.Background()
	started, err := st.StartTurn(ctx, tr.Session.ID, "one more thing", 1)
	if err != nil {
		t.Fatal(err)
	}
	res, body := get(t, base+"api/trace", map[string]string{"If-None-Match": tag})
	if res.StatusCode != http.StatusOK {
		t.Fatalf("after a new turn: %s", res.Status)
	}
	var v trace.View
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	if !v.Live || len(v.Turns) != 3 || v.Turns[2].Prompt != "one more thing" || v.Turns[2].Status != string(store.TurnRunning) {
		t.Errorf("live view: live %v, %d turns", v.Live, len(v.Turns))
	}

	// Nothing new: 304 under the new tag. The turn's end: a new view.
	tag = res.Header.Get("ETag")
	if res, _ = get(t, base+"api/trace", map[string]string{"If-None-Match": tag}); res.StatusCode != http.StatusNotModified {
		t.Errorf("unchanged after the new turn: %s", res.Status)
	}
	started.Status = store.TurnDone
	if err := st.FinishTurn(ctx, started); err != nil {
		t.Fatal(err)
	}
	res, body = get(t, base+"api/trace", map[string]string{"If-None-Match": tag})
	if err := json.Unmarshal([]byte(body), &v); err != nil || res.StatusCode != http.StatusOK || v.Live || v.Turns[2].Status != string(store.TurnDone) {
		t.Errorf("after the turn ended: %s, live %v, %v", res.Status, v.Live, err)
	}

	// Another server on the same database (a restarted inspect) has tags
	// of its own, so a page left open reloads once.
	_, againBase := serve(t, st, tr.Session.ID)
	tag = res.Header.Get("ETag")
	if res, _ := get(t, againBase+"api/trace", map[string]string{"If-None-Match": tag}); res.StatusCode != http.StatusOK || res.Header.Get("ETag") == tag {
		t.Errorf("a new server answered the old server's tag with %s", res.Status)
	}
}

func TestHandlerRefusesForeignHostsAndUnknownSessions(t *testing.T) {
	st, tr := loadRecorded(t)
	_, base := serve(t, st, tr.Session.ID)
	// DNS rebinding: a page on evil.example resolving to 127.0.0.1.
	req, _ := http.NewRequest(http.MethodGet, base+"api/trace", nil)
	req.Host = "evil.example"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host: %s", res.Status)
	}
	req.Host = "localhost"
	if res, err = http.DefaultClient.Do(req); err != nil || res.StatusCode != 200 {
		t.Errorf("Host localhost: %v %v", res.Status, err)
	}
	res.Body.Close()

	_, goneBase := serve(t, st, "nosuchsession")
	res, body := get(t, goneBase+"api/trace", nil)
	if res.StatusCode != http.StatusNotFound || !strings.Contains(body, "godwit sessions") {
		t.Errorf("unknown session: %s %q", res.Status, body)
	}
}

// Without the token, in any form, nothing is served: not the page, not
// the trace.
func TestHandlerNeedsTheToken(t *testing.T) {
	st, tr := loadRecorded(t)
	srv, base := serve(t, st, tr.Session.ID)
	token := strings.Trim(strings.TrimPrefix(base, srv.URL), "/")
	otherSrv, other := serve(t, st, tr.Session.ID)
	otherToken := strings.Trim(strings.TrimPrefix(other, otherSrv.URL), "/")
	for _, u := range []string{"/", "/api/trace", "/api/events", "/app.js", "/" + token, "/" + token[:len(token)-1] + "/api/trace",
		"/" + strings.ToUpper(token) + "/api/trace", "/x" + token + "/api/trace", "//" + token + "/api/trace", "/api/trace?token=" + token,
		"/" + otherToken + "/api/trace"} {
		res, body := get(t, srv.URL+u, nil)
		if res.StatusCode != http.StatusNotFound || strings.Contains(body, tr.Session.ID) {
			t.Errorf("GET %s: %s %q", u, res.Status, body)
		}
	}
	if res, _ := get(t, base+"api/trace", nil); res.StatusCode != http.StatusOK {
		t.Errorf("with the token: %s", res.Status)
	}
}

package trace_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/peertest"
	"github.com/godwit/godwit/internal/trace"
)

// chromium is where Debian's chromium package puts the browser (.ci/run
// installs it).
const chromium = "/usr/bin/chromium"

// headless runs chromium on url with the flags that work in a container
// without a display or network, plus extra, and returns its stdout.
func headless(t *testing.T, url string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(),
		// Let the page's fetches finish before the DOM is taken.
		"--virtual-time-budget=5000"}, extra...)
	cmd := exec.CommandContext(ctx, chromium, append(args, url)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(stderr.String(), 2000))
	}
	return string(out)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestPageInChromium loads the page in a real browser and checks what it
// drew: the timeline, the chart and a tool call's output. Set
// GODWIT_TRACE_SCREENSHOT=/path/shot.png to also save a screenshot.
func TestPageInChromium(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		peertest.Missing(t, "%s is absent (install Debian's chromium package: apt-get install -y chromium)", chromium)
	}
	if testing.Short() {
		t.Skip("skipping the browser test in -short mode")
	}
	st, tr := loadRecorded(t)
	_, base := serve(t, st, tr.Session.ID)

	dom := headless(t, base, "--dump-dom")
	for _, want := range []string{
		// The header and the summary, from /api/trace.
		tr.Session.ID,
		`class="cards"`,
		// The timeline: both turns, steps, tool calls with their outcome.
		`id="t1"`, `id="t2"`, `id="t1s5"`, `id="t2s4"`,
		`The Add function in calc.go returns the wrong sum`,
		`<span class="name">file_write</span>`,
		`<span class="badge err">exit 1</span>`,
		`verify #1: go test ./... -&gt; exit 0`,
		`check unverified_write sent the model back`,
		// The chart: one bar per model call.
		`<svg viewBox=`, `class="chart"`, `data-call="t1s1"`, `data-call="t2s4"`,
		// A tool call's output and a diff, in the expandable blocks.
		`./calc.go:5:9: undefined: sum`,
		`<span class="add">+	return a + b`,
		// Context parts of a call.
		`context: `,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if n := strings.Count(dom, `class="bar"`); n != 15 {
		t.Errorf("chart has %d bars, want 15 (one per model call)", n)
	}
	if strings.Contains(dom, "cannot reach godwit") {
		t.Error("the page reports it could not load the session")
	}
	if t.Failed() {
		t.Logf("DOM:\n%s", tail(dom, 4000))
	}
	if shot := os.Getenv("GODWIT_TRACE_SCREENSHOT"); shot != "" {
		headless(t, base, "--screenshot="+shot, "--window-size=1280,2400", "--hide-scrollbars")
	}
}

// TestPageFollowsTheSessionInChromium checks, in a real browser, that the
// page picks up a change to the session it shows and that its polls while
// nothing changes are answered 304 (the cheap path): the server starts a
// new turn right after the page's first load, and the page must then show
// it, as a live turn.
func TestPageFollowsTheSessionInChromium(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		peertest.Missing(t, "%s is absent (install Debian's chromium package: apt-get install -y chromium)", chromium)
	}
	if testing.Short() {
		t.Skip("skipping the browser test in -short mode")
	}
	st, tr := loadRecorded(t)
	h, path := trace.Handler(st, tr.Session.ID)
	var (
		mu       sync.Mutex
		statuses []int
		wrote    bool
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path+"api/trace" {
			h.ServeHTTP(w, r)
			return
		}
		rec := &statusRecorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		mu.Lock()
		defer mu.Unlock()
		statuses = append(statuses, rec.code)
		if !wrote {
			wrote = true
			if _, err := st.StartTurn(context.Background(), tr.Session.ID, "one more thing, asked while the page was open", 1); err != nil {
				t.Error(err)
			}
		}
	}))
	defer srv.Close()

	dom := headless(t, srv.URL+path, "--dump-dom")
	for _, want := range []string{`id="t3"`, "one more thing, asked while the page was open", `class="status live"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("after the session changed, the page lacks %q", want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("the page's polls were answered %v", statuses)
	if len(statuses) < 3 || statuses[0] != http.StatusOK || statuses[1] != http.StatusOK {
		t.Errorf("polls answered %v, want 200 (the first load), 200 (after the new turn), then 304s", statuses)
	}
	for i, code := range statuses[min(2, len(statuses)):] {
		if code != http.StatusNotModified {
			t.Errorf("poll %d with nothing new answered %d, want 304", i+3, code)
		}
	}
	if t.Failed() {
		t.Logf("DOM:\n%s", tail(dom, 4000))
	}
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

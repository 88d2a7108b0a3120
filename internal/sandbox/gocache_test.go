package sandbox

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// goEntry writes an entry in Go's own cache layout, as the user's go
// command would: the output under its hash, the action line naming it.
// exe, when set, stores the output as a cached executable (a folder
// holding one file of that name).
func goEntry(t *testing.T, dir string, action byte, body string, exe string, at time.Time) [hashSize]byte {
	t.Helper()
	out := sha256.Sum256([]byte(body))
	a := actionID(action)
	d := entryPath(dir, out[:], "d")
	if exe != "" {
		d = filepath.Join(d, exe)
	}
	mustWrite(t, d, body, 0o755)
	e := entry{out: out, size: int64(len(body)), time: at}
	mustWrite(t, entryPath(dir, a, "a"), string(e.line(a)), 0o644)
	return out
}

func actionID(b byte) []byte {
	id := make([]byte, hashSize)
	for i := range id {
		id[i] = b
	}
	return id
}

func mustWrite(t *testing.T, p, body string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
}

// snapshot is every file under dir with its content and mode, to show a
// cache was not touched.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if fi.IsDir() {
			m[rel] = "dir " + fi.Mode().String()
			return nil
		}
		b, _ := os.ReadFile(p)
		m[rel] = fi.Mode().String() + " " + fi.ModTime().String() + " " + string(b)
		return nil
	})
	return m
}

func TestGoCacheGet(t *testing.T) {
	old := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct {
		name string
		// user builds the user's cache and returns what a get of action
		// 0x11 must return ("" for a miss).
		user func(t *testing.T, dir string) string
	}{
		{"hit in the user's cache", func(t *testing.T, dir string) string {
			goEntry(t, dir, 0x11, "export data", "", old)
			return "export data"
		}},
		{"a cached executable", func(t *testing.T, dir string) string {
			goEntry(t, dir, 0x11, "#!binary", "tool", old)
			return "#!binary"
		}},
		{"nothing there", func(t *testing.T, dir string) string { return "" }},
		{"output of the wrong size", func(t *testing.T, dir string) string {
			out := goEntry(t, dir, 0x11, "export data", "", old)
			mustWrite(t, entryPath(dir, out[:], "d"), "export dat", 0o644)
			return ""
		}},
		{"output that does not hash to its id", func(t *testing.T, dir string) string {
			out := goEntry(t, dir, 0x11, "export data", "", old)
			mustWrite(t, entryPath(dir, out[:], "d"), "EXPORT DATA", 0o644)
			return ""
		}},
		{"entry naming another action", func(t *testing.T, dir string) string {
			goEntry(t, dir, 0x22, "export data", "", old)
			b, _ := os.ReadFile(entryPath(dir, actionID(0x22), "a"))
			mustWrite(t, entryPath(dir, actionID(0x11), "a"), string(b), 0o644)
			return ""
		}},
		{"short entry", func(t *testing.T, dir string) string {
			mustWrite(t, entryPath(dir, actionID(0x11), "a"), "v1 1111\n", 0o644)
			return ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			user, private := filepath.Join(base, "user"), filepath.Join(base, "private")
			want := tc.user(t, user)
			before := snapshot(t, user)
			c := &goCache{private: private, user: user, now: time.Now}
			res := c.get(progRequest{ID: 7, Command: "get", ActionID: actionID(0x11)})
			if res.ID != 7 {
				t.Errorf("ID %d, want 7", res.ID)
			}
			if want == "" {
				if !res.Miss {
					t.Fatalf("want a miss, got %+v", res)
				}
				return
			}
			if res.Miss || res.DiskPath == "" {
				t.Fatalf("want a hit, got %+v", res)
			}
			if !strings.HasPrefix(res.DiskPath, private+string(filepath.Separator)) {
				t.Errorf("DiskPath %s is not in the private cache: the go command would read the user's, which may be trimmed under it", res.DiskPath)
			}
			if b, _ := os.ReadFile(res.DiskPath); string(b) != want || res.Size != int64(len(want)) {
				t.Errorf("DiskPath holds %q (size %d), want %q", b, res.Size, want)
			}
			if sum := sha256.Sum256([]byte(want)); string(res.OutputID) != string(sum[:]) {
				t.Errorf("OutputID is not the output's hash")
			}
			if res.Time == nil || !res.Time.Equal(old) {
				t.Errorf("Time %v, want the user's entry's %v (go clean -testcache compares it)", res.Time, old)
			}
			if got := snapshot(t, user); !equalMaps(got, before) {
				t.Errorf("the user's cache changed:\nbefore %v\nafter  %v", before, got)
			}
			// Now the private cache answers alone.
			c.user = ""
			if again := c.get(progRequest{ID: 8, Command: "get", ActionID: actionID(0x11)}); again.Miss || again.DiskPath != res.DiskPath {
				t.Errorf("second get %+v, want the private copy %s", again, res.DiskPath)
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestGoCachePut(t *testing.T) {
	private := t.TempDir()
	c := &goCache{private: private, now: time.Now}
	body := []byte("compiled package")
	out := sha256.Sum256(body)
	for _, tc := range []struct {
		name    string
		req     progRequest
		body    []byte
		wantErr string
	}{
		{"stored", progRequest{ID: 1, ActionID: actionID(0x33), OutputID: out[:], BodySize: int64(len(body))}, body, ""},
		{"empty body", progRequest{ID: 2, ActionID: actionID(0x34), OutputID: func() []byte { s := sha256.Sum256(nil); return s[:] }()}, nil, ""},
		{"body that does not match", progRequest{ID: 3, ActionID: actionID(0x35), OutputID: out[:], BodySize: 3}, []byte("abc"), "does not match"},
		{"short body", progRequest{ID: 4, ActionID: actionID(0x36), OutputID: out[:], BodySize: 99}, body, "want 99"},
		{"bad action id", progRequest{ID: 5, ActionID: []byte{1}, OutputID: out[:], BodySize: int64(len(body))}, body, "bad action"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := c.put(tc.req, tc.body)
			if tc.wantErr != "" {
				if !strings.Contains(res.Err, tc.wantErr) {
					t.Fatalf("Err %q, want %q", res.Err, tc.wantErr)
				}
				return
			}
			if res.Err != "" {
				t.Fatal(res.Err)
			}
			if b, err := os.ReadFile(res.DiskPath); err != nil || string(b) != string(tc.body) {
				t.Fatalf("DiskPath %s: %q, %v", res.DiskPath, b, err)
			}
			got := c.get(progRequest{ID: 9, ActionID: tc.req.ActionID})
			if got.Miss || got.DiskPath != res.DiskPath || got.Size != tc.req.BodySize {
				t.Errorf("get after put: %+v", got)
			}
			// Go's own cache reads the same layout (an older go command
			// without GOCACHEPROG uses the folder natively).
			if _, _, ok := lookup(private, tc.req.ActionID); !ok {
				t.Errorf("the entry is not in Go's layout")
			}
		})
	}
}

// TestGoCacheProtocol plays the go command's side of the wire: the
// capabilities first, a put with its base64 body on the next line, gets
// answered in any order, close.
func TestGoCacheProtocol(t *testing.T) {
	base := t.TempDir()
	user := filepath.Join(base, "user")
	goEntry(t, user, 0x44, "from the user", "", time.Now())
	c := &goCache{private: filepath.Join(base, "private"), user: user, now: time.Now}
	body := []byte("new output")
	out := sha256.Sum256(body)
	var in strings.Builder
	enc := json.NewEncoder(&in)
	_ = enc.Encode(progRequest{ID: 1, Command: "put", ActionID: actionID(0x55), OutputID: out[:], BodySize: int64(len(body))})
	_ = enc.Encode(body) // a JSON string of the base64 body
	_ = enc.Encode(progRequest{ID: 2, Command: "get", ActionID: actionID(0x44)})
	_ = enc.Encode(progRequest{ID: 3, Command: "get", ActionID: actionID(0x66)})
	_ = enc.Encode(progRequest{ID: 4, Command: "frobnicate"})
	_ = enc.Encode(progRequest{ID: 5, Command: "close"})
	_ = enc.Encode(progRequest{ID: 6, Command: "get", ActionID: actionID(0x44)}) // after close: never read
	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	go func() { errc <- c.serve(strings.NewReader(in.String()), pw); pw.Close() }()
	sc := bufio.NewScanner(pr)
	var got []progResponse
	for sc.Scan() {
		var r progResponse
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		got = append(got, r)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 || got[0].ID != 0 || strings.Join(got[0].KnownCommands, ",") != "get,put,close" {
		t.Fatalf("responses %+v", got)
	}
	byID := map[int64]progResponse{}
	for _, r := range got[1:] {
		byID[r.ID] = r
	}
	if r := byID[1]; r.Err != "" || r.DiskPath == "" {
		t.Errorf("put: %+v", r)
	}
	if r := byID[2]; r.Miss || r.DiskPath == "" {
		t.Errorf("get from the user's cache: %+v", r)
	}
	if r := byID[3]; !r.Miss {
		t.Errorf("get of nothing: %+v", r)
	}
	if r := byID[4]; !strings.Contains(r.Err, "unknown command") {
		t.Errorf("unknown command: %+v", r)
	}
	if got[len(got)-1].ID != 5 {
		t.Errorf("close must be answered last, after what was in flight: %+v", got)
	}
}

func TestGoCacheTrim(t *testing.T) {
	private := t.TempDir()
	now := time.Now()
	c := &goCache{private: private, now: func() time.Time { return now }}
	oldOut := goEntry(t, private, 0x01, "old", "", now)
	newOut := goEntry(t, private, 0x02, "new", "", now)
	stale := now.Add(-trimLimit - 2*mtimeInterval)
	for _, p := range []string{entryPath(private, actionID(0x01), "a"), entryPath(private, oldOut[:], "d")} {
		if err := os.Chtimes(p, stale, stale); err != nil {
			t.Fatal(err)
		}
	}
	c.trim()
	for _, p := range []string{entryPath(private, actionID(0x01), "a"), entryPath(private, oldOut[:], "d")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s unused for five days was kept (%v)", p, err)
		}
	}
	for _, p := range []string{entryPath(private, actionID(0x02), "a"), entryPath(private, newOut[:], "d")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s in use was trimmed: %v", p, err)
		}
	}
	// Once a day at most: a stale entry made now stays until tomorrow.
	goEntry(t, private, 0x03, "later", "", now)
	if err := os.Chtimes(entryPath(private, actionID(0x03), "a"), stale, stale); err != nil {
		t.Fatal(err)
	}
	c.trim()
	if _, err := os.Stat(entryPath(private, actionID(0x03), "a")); err != nil {
		t.Errorf("trimmed twice in a day: %v", err)
	}
}

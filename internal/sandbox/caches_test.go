package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// cacheEnv runs Caches.Env for a user with home, environment env and go
// settings goenv (nil: no go command), commands writing writable.
func cacheEnv(t *testing.T, home string, env map[string]string, goenv map[string]string, writable ...string) (map[string]string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cache")
	c := NewCaches(CacheOptions{Dir: dir, Home: home, Writable: writable, Executable: "/opt/godwit",
		Getenv: func(k string) string { return env[k] },
		GoEnv: func(context.Context, ...string) (map[string]string, error) {
			return goenv, nil
		}})
	got := map[string]string{}
	for _, kv := range c.Env() {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := got[k]; dup {
			t.Errorf("%s set twice", k)
		}
		got[k] = v
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the cache folder was not made: %v", err)
	}
	return got, dir
}

// userGo is a user's go settings with caches in home, as `go env` shows
// them by default.
func userGo(home string) map[string]string {
	return map[string]string{"GOCACHE": filepath.Join(home, ".cache", "go-build"), "GOMODCACHE": filepath.Join(home, "go", "pkg", "mod"),
		"GOPROXY": "https://proxy.golang.org,direct", "GOFLAGS": "", "GO111MODULE": "", "GOCACHEPROG": ""}
}

func userHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	for _, d := range []string{".cache/go-build", "go/pkg/mod/cache/download/example.com/dep/@v"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func TestCachesGo(t *testing.T) {
	home := userHome(t)
	ws := t.TempDir()
	for _, tc := range []struct {
		name     string
		goenv    func(map[string]string)
		writable []string
		want     map[string]string // value, or "" for unset; "~" prefix: under the cache folder
	}{
		{"the user's defaults", nil, nil, map[string]string{
			"GOCACHE": "~/go-build", "GOMODCACHE": "~/go/pkg/mod", "GOPATH": "~/go", "GOFLAGS": "-modcacherw",
			"GOPROXY":     "file://~/go-proxy,https://proxy.golang.org,direct",
			"GOCACHEPROG": "/opt/godwit __godwit_gocache ~/go-build " + filepath.Join(home, ".cache", "go-build")}},
		{"GOFLAGS of the user's are kept", func(g map[string]string) { g["GOFLAGS"] = "-mod=mod -tags=integration" }, nil, map[string]string{
			"GOFLAGS": "-mod=mod -tags=integration -modcacherw"}},
		{"-modcacherw already there", func(g map[string]string) { g["GOFLAGS"] = "-modcacherw" }, nil, map[string]string{"GOFLAGS": ""}},
		{"GOPROXY=off stays off past the file proxy", func(g map[string]string) { g["GOPROXY"] = "off" }, nil, map[string]string{
			"GOPROXY": "file://~/go-proxy,off"}},
		{"the user's GOCACHEPROG wins", func(g map[string]string) { g["GOCACHEPROG"] = "/usr/bin/remote-cache" }, nil, map[string]string{
			"GOCACHE": "~/go-build", "GOCACHEPROG": ""}},
		{"GOPATH mode keeps GOPATH", func(g map[string]string) { g["GO111MODULE"] = "off" }, nil, map[string]string{
			"GOPATH": "", "GOMODCACHE": "~/go/pkg/mod"}},
		{"caches inside the workspace are the user's choice", func(g map[string]string) {
			g["GOCACHE"] = filepath.Join(ws, ".cache", "go")
			g["GOMODCACHE"] = filepath.Join(ws, ".cache", "mod")
		}, nil, map[string]string{"GOCACHE": filepath.Join(ws, ".cache", "go"), "GOCACHEPROG": "", "GOMODCACHE": "", "GOPATH": "", "GOPROXY": "", "GOFLAGS": ""}},
		// Named outright, since XDG_CACHE_HOME, whence its default, moves.
		{"a sandbox.writable entry keeps the default build cache", nil, []string{filepath.Join(home, ".cache", "go-build")}, map[string]string{
			"GOCACHE": filepath.Join(home, ".cache", "go-build"), "GOCACHEPROG": "", "GOMODCACHE": "~/go/pkg/mod"}},
		{"a sandbox.writable entry above the module cache keeps it", nil, []string{filepath.Join(home, "go")}, map[string]string{
			"GOCACHE": "~/go-build", "GOMODCACHE": "", "GOPATH": "", "GOPROXY": ""}},
		{"no user cache to read through", func(g map[string]string) { g["GOCACHE"] = filepath.Join(home, "nonexistent") }, nil, map[string]string{
			"GOCACHE": "~/go-build", "GOCACHEPROG": ""}},
		{"GOCACHE=off", func(g map[string]string) { g["GOCACHE"] = "off" }, nil, map[string]string{
			"GOCACHE": "~/go-build", "GOCACHEPROG": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := userGo(home)
			if tc.goenv != nil {
				tc.goenv(g)
			}
			got, dir := cacheEnv(t, home, nil, g, append([]string{ws}, tc.writable...)...)
			for k, want := range tc.want {
				want = strings.ReplaceAll(want, "~", dir)
				if got[k] != want {
					t.Errorf("%s=%q, want %q", k, got[k], want)
				}
			}
		})
	}
}

func TestCachesNoGo(t *testing.T) {
	home := userHome(t)
	got, _ := cacheEnv(t, home, nil, nil)
	for _, k := range goSettings {
		if v, ok := got[k]; ok {
			t.Errorf("without a go command %s=%q was set", k, v)
		}
	}
	if got["XDG_CACHE_HOME"] == "" {
		t.Error("the other caches must still move")
	}
}

func TestCachesOthers(t *testing.T) {
	home := userHome(t)
	ws := t.TempDir()
	for _, tc := range []struct {
		name     string
		env      map[string]string
		writable []string
		want     map[string]string // "~": under the cache folder
	}{
		{"defaults move", nil, nil, map[string]string{"XDG_CACHE_HOME": "~/xdg", "npm_config_cache": "~/npm", "PIP_CACHE_DIR": "~/pip",
			"CARGO_HOME": "~/cargo", "YARN_CACHE_FOLDER": "~/yarn", "npm_config_store_dir": "~/pnpm-store", "GRADLE_USER_HOME": "~/gradle"}},
		{"an explicit setting outside is the user's cache: moved", map[string]string{"PIP_CACHE_DIR": "/var/cache/pip"}, nil,
			map[string]string{"PIP_CACHE_DIR": "~/pip"}},
		{"an explicit setting inside the workspace is kept", map[string]string{"PIP_CACHE_DIR": filepath.Join(ws, ".pip")}, nil,
			map[string]string{"PIP_CACHE_DIR": filepath.Join(ws, ".pip")}},
		{"npm's other spelling is overridden as spelled", map[string]string{"NPM_CONFIG_CACHE": "/srv/npm"}, nil,
			map[string]string{"NPM_CONFIG_CACHE": "~/npm", "npm_config_cache": ""}},
		{"a writable default is pinned against the XDG move", nil, []string{filepath.Join(home, ".cache", "pip")},
			map[string]string{"PIP_CACHE_DIR": filepath.Join(home, ".cache", "pip"), "XDG_CACHE_HOME": "~/xdg"}},
		{"a writable ~/.cache keeps XDG and what lies in it", nil, []string{filepath.Join(home, ".cache")},
			map[string]string{"XDG_CACHE_HOME": filepath.Join(home, ".cache"), "PIP_CACHE_DIR": filepath.Join(home, ".cache", "pip"), "npm_config_cache": "~/npm"}},
		{"a relative setting is not trusted", map[string]string{"CARGO_HOME": "cargo"}, nil, map[string]string{"CARGO_HOME": "~/cargo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, dir := cacheEnv(t, home, tc.env, nil, append([]string{ws}, tc.writable...)...)
			for k, want := range tc.want {
				want = strings.ReplaceAll(want, "~", dir)
				if got[k] != want {
					t.Errorf("%s=%q, want %q", k, got[k], want)
				}
			}
		})
	}
}

func TestCachesGoEnvFails(t *testing.T) {
	c := NewCaches(CacheOptions{Dir: filepath.Join(t.TempDir(), "c"), Home: t.TempDir(),
		GoEnv: func(context.Context, ...string) (map[string]string, error) { return nil, errors.New("go: bad GOFLAGS") }})
	env := c.Env()
	if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "GOCACHE=") }) {
		t.Errorf("Go settings without go env: %v", env)
	}
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "XDG_CACHE_HOME=") }) {
		t.Errorf("the other caches must still move: %v", env)
	}
}

func TestLinkDownloads(t *testing.T) {
	base := t.TempDir()
	src, view := filepath.Join(base, "download"), filepath.Join(base, "view")
	files := map[string]string{
		"example.com/dep/@v/v1.0.0.info":    `{"Version":"v1.0.0"}`,
		"example.com/dep/@v/v1.0.0.mod":     "module example.com/dep\n",
		"example.com/dep/@v/v1.0.0.zip":     "PK",
		"example.com/dep/@v/v1.0.0.ziphash": "h1:x",
		"example.com/dep/@v/v1.0.0.lock":    "",
		"example.com/dep/@v/list":           "v1.0.0\n",
		"example.com/dep/@v/v1.1.0.partial": "P",
		"sumdb/sum.golang.org/lookup/x":     "y",
	}
	for p, body := range files {
		mustWrite(t, filepath.Join(src, p), body, 0o444)
	}
	for range 2 { // a second session finds the links there
		if err := linkDownloads(src, view); err != nil {
			t.Fatal(err)
		}
	}
	for p := range files {
		link, err := os.Readlink(filepath.Join(view, p))
		wantLink := strings.HasSuffix(p, ".info") || strings.HasSuffix(p, ".mod") || strings.HasSuffix(p, ".zip")
		switch {
		case wantLink && (err != nil || link != filepath.Join(src, p)):
			t.Errorf("%s: link %q, %v", p, link, err)
		case !wantLink && err == nil:
			t.Errorf("%s linked: the view must leave it out", p)
		}
	}
	if err := linkDownloads(filepath.Join(base, "none"), view); err == nil {
		t.Error("a missing module cache must say so")
	}
}

func TestWritableSet(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ws, filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	w := newWritableSet([]string{ws})
	for p, want := range map[string]bool{
		ws:                                   true,
		filepath.Join(ws, "a", "b"):          true,
		filepath.Join(base, "link", "c"):     true, // through a link, not yet made
		filepath.Join(base, "wsx"):           false,
		filepath.Join(ws, "..", "elsewhere"): false,
		"relative":                           false,
		"":                                   false,
	} {
		if got := w.holds(p); got != want {
			t.Errorf("holds(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestGoCacheProgQuoting(t *testing.T) {
	for _, tc := range []struct{ exe, want string }{
		{"/opt/godwit", "/opt/godwit __godwit_gocache /p /u"},
		{"/opt/my apps/godwit", "'/opt/my apps/godwit' __godwit_gocache /p /u"},
		{"/opt/it's here/godwit", `"/opt/it's here/godwit" __godwit_gocache /p /u`},
		{`/opt/'"/godwit`, ""},
	} {
		c := NewCaches(CacheOptions{Executable: tc.exe})
		got, ok := c.goCacheProg("/p", "/u")
		if !ok {
			got = ""
		}
		if got != tc.want {
			t.Errorf("%q: %q, want %q", tc.exe, got, tc.want)
		}
	}
}

// TestCacheWritesStayInside: godwit writes into the commands' caches
// outside the sandbox, and commands can write there; a folder a command
// swapped for a link out of the caches must not carry those writes out
// (the links of the module view, testexpire.txt, the telemetry mode).
func TestCacheWritesStayInside(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "outside")
	dir := filepath.Join(base, "cache")
	src := filepath.Join(base, "mod", "cache", "download")
	for _, d := range []string{out, filepath.Join(src, "example.com", "dep", "@v"), filepath.Join(dir, "go-proxy", "example.com", "dep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "example.com", "dep", "@v", "v1.0.0.mod"), []byte("module example.com/dep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(dir, "go-proxy", "example.com", "dep", "@v")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(dir, "go-build")); err != nil {
		t.Fatal(err)
	}
	if err := linkDownloads(src, filepath.Join(dir, "go-proxy")); err == nil {
		t.Error("linkDownloads followed a link out of the caches' folder")
	}
	if err := writeInside(dir, filepath.Join("go-build", "testexpire.txt"), []byte("1")); err == nil {
		t.Error("writeInside followed a link out of the caches' folder")
	}
	if entries, _ := os.ReadDir(out); len(entries) > 0 {
		t.Errorf("files appeared outside the caches: %v", entries)
	}
	// Inside, both work.
	if err := writeInside(dir, filepath.Join("go-build2", "testexpire.txt"), []byte("1")); err != nil {
		t.Errorf("writeInside: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "go-proxy", "example.com", "dep", "@v")); err != nil {
		t.Fatal(err)
	}
	if err := linkDownloads(src, filepath.Join(dir, "go-proxy")); err != nil {
		t.Errorf("linkDownloads: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "go-proxy", "example.com", "dep", "@v", "v1.0.0.mod")); err != nil {
		t.Errorf("the view has no link: %v", err)
	}
}

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/godwit/godwit/internal/atomicfile"
	"github.com/godwit/godwit/internal/hostpath"
)

// Caches are private, persistent caches (Go's, npm's, cargo's, ...)
// that commands may write in ask and auto mode, under Dir and shared by
// one GODWIT_HOME's sessions. The user's own stay read-only: their
// unsandboxed builds trust them, so a planted compiled package or module
// source would run there. Go reads through to the user's build cache
// (GOCACHEPROG, gocache.go) and module downloads (a file GOPROXY of
// links); docs/architecture.md "Build caches" gives the whole design.
// A user's setting inside a folder commands may write anyway (the
// workspace, sandbox.writable) is kept.
type Caches struct {
	opts CacheOptions
	once sync.Once
	env  []string
}

// CacheOptions say where the caches live.
type CacheOptions struct {
	// Dir holds the caches: $GODWIT_HOME/cache.
	Dir string
	// Writable are the other folders commands may write (the workspace,
	// the rules' sandbox.writable): a cache setting inside one is kept.
	Writable []string
	// Getenv reads the environment commands inherit; nil is os.Getenv.
	Getenv func(string) string
	// Home is the user's home folder, where tools keep their caches by
	// default; "" is os.UserHomeDir.
	Home string
	// GoEnv returns the go command's settings of names (`go env`); nil
	// runs the go command on PATH, and no go command means no Go caches.
	GoEnv func(ctx context.Context, names ...string) (map[string]string, error)
	// Executable is godwit's own binary, the GOCACHEPROG; "" is
	// os.Executable.
	Executable string
	Logger     *slog.Logger
}

// NewCaches returns the caches of opts. Nothing is read or made until
// the first Env.
func NewCaches(opts CacheOptions) *Caches {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Home == "" {
		opts.Home, _ = os.UserHomeDir()
	}
	if opts.GoEnv == nil {
		dir, writable := opts.Dir, opts.Writable
		opts.GoEnv = func(ctx context.Context, names ...string) (map[string]string, error) {
			return goEnv(ctx, dir, writable, names...)
		}
	}
	opts.Logger = logger(opts.Logger)
	return &Caches{opts: opts}
}

// Dir is the folder the sandbox must let commands write.
func (c *Caches) Dir() string { return c.opts.Dir }

// Env returns the variables commands get, worked out once, at the first
// command (`go env` takes ~10 ms). On failure it logs and returns what it
// could: commands then meet the user's caches read-only.
func (c *Caches) Env() []string {
	c.once.Do(func() { c.env = c.compute(context.Background()) })
	return c.env
}

func (c *Caches) compute(ctx context.Context) []string {
	if c.opts.Dir == "" {
		return nil
	}
	if err := os.MkdirAll(c.opts.Dir, 0o755); err != nil {
		c.opts.Logger.Warn("sandbox: cannot make the commands' private caches, so build tools meet your caches read-only", "dir", c.opts.Dir, "err", err)
		return nil
	}
	w := newWritableSet(append([]string{c.opts.Dir}, c.opts.Writable...))
	env := c.goVars(ctx, w)
	home := c.opts.Home
	p := places{home: home, xdgCache: c.opts.Getenv("XDG_CACHE_HOME"), xdgData: c.opts.Getenv("XDG_DATA_HOME")}
	if p.xdgCache == "" {
		p.xdgCache = filepath.Join(home, ".cache")
	}
	if p.xdgData == "" {
		p.xdgData = filepath.Join(home, ".local", "share")
	}
	for _, v := range cacheVars {
		name, loc := v.name, c.opts.Getenv(v.name)
		if loc == "" && v.alias != "" {
			if loc = c.opts.Getenv(v.alias); loc != "" {
				name = v.alias // override the spelling the user used
			}
		}
		if loc == "" && home != "" {
			loc = v.def(p)
		}
		if loc != "" && w.holds(loc) {
			// The user's choice. Named outright, so that XDG_CACHE_HOME
			// moving does not move it.
			env = append(env, name+"="+loc)
			continue
		}
		env = append(env, name+"="+filepath.Join(c.opts.Dir, v.sub))
	}
	return env
}

// cacheVar is a tool's cache setting.
type cacheVar struct {
	name  string
	alias string // another spelling the tool reads, or ""
	sub   string // its folder under Dir
	// def is where the tool caches when the variable is unset.
	def func(p places) string
}

// places are the user's folders tools derive their defaults from.
type places struct{ home, xdgCache, xdgData string }

// cacheVars are the caches moved besides Go's; a tool not installed
// costs a variable.
var cacheVars = []cacheVar{
	{"XDG_CACHE_HOME", "", "xdg", func(p places) string { return p.xdgCache }},
	{"npm_config_cache", "NPM_CONFIG_CACHE", "npm", func(p places) string { return filepath.Join(p.home, ".npm") }},
	{"npm_config_store_dir", "NPM_CONFIG_STORE_DIR", "pnpm-store", func(p places) string { return filepath.Join(p.xdgData, "pnpm", "store") }},
	{"YARN_CACHE_FOLDER", "", "yarn", func(p places) string { return filepath.Join(p.xdgCache, "yarn") }},
	{"PIP_CACHE_DIR", "", "pip", func(p places) string { return filepath.Join(p.xdgCache, "pip") }},
	{"UV_CACHE_DIR", "", "uv", func(p places) string { return filepath.Join(p.xdgCache, "uv") }},
	{"CARGO_HOME", "", "cargo", func(p places) string { return filepath.Join(p.home, ".cargo") }},
	{"GRADLE_USER_HOME", "", "gradle", func(p places) string { return filepath.Join(p.home, ".gradle") }},
	{"DENO_DIR", "", "deno", func(p places) string { return filepath.Join(p.xdgCache, "deno") }},
	{"BUN_INSTALL_CACHE_DIR", "", "bun", func(p places) string { return filepath.Join(p.home, ".bun", "install", "cache") }},
	{"COMPOSER_CACHE_DIR", "", "composer", func(p places) string { return filepath.Join(p.xdgCache, "composer") }},
}

// goSettings are what goVars reads of `go env`.
var goSettings = []string{"GOCACHE", "GOMODCACHE", "GOPROXY", "GOFLAGS", "GO111MODULE", "GOCACHEPROG"}

// goVars are the Go settings; none without a go command.
func (c *Caches) goVars(ctx context.Context, w writableSet) []string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	g, err := c.opts.GoEnv(ctx, goSettings...)
	if err != nil {
		c.opts.Logger.Warn("sandbox: cannot read the go command's settings, so go commands meet your Go caches read-only", "err", err)
		return nil
	}
	if g == nil {
		return nil // no go command
	}
	var env []string
	if userCache := g["GOCACHE"]; userCache != "off" && w.holds(userCache) {
		// The user's choice, named outright: its default derives from
		// XDG_CACHE_HOME, which moves.
		env = append(env, "GOCACHE="+userCache)
	} else {
		private := filepath.Join(c.opts.Dir, "go-build")
		env = append(env, "GOCACHE="+private)
		if g["GOCACHEPROG"] == "" && isDir(userCache) {
			if prog, ok := c.goCacheProg(private, userCache); ok {
				env = append(env, "GOCACHEPROG="+prog)
			}
			syncTestExpire(userCache, private)
		}
	}
	if userMods := g["GOMODCACHE"]; !w.holds(userMods) {
		gopath := filepath.Join(c.opts.Dir, "go")
		env = append(env, "GOMODCACHE="+filepath.Join(gopath, "pkg", "mod"))
		if g["GO111MODULE"] != "off" { // GOPATH mode builds from the user's GOPATH
			// Also where the checksum database's state (pkg/sumdb) and
			// go install's binaries go.
			env = append(env, "GOPATH="+gopath)
		}
		if !strings.Contains(" "+g["GOFLAGS"]+" ", " -modcacherw ") {
			env = append(env, "GOFLAGS="+strings.TrimSpace(g["GOFLAGS"]+" -modcacherw"))
		}
		view := filepath.Join(c.opts.Dir, "go-proxy")
		if err := linkDownloads(filepath.Join(userMods, "cache", "download"), view); err != nil {
			c.opts.Logger.Debug("sandbox: no file proxy over your module cache", "err", err)
		} else if u, ok := fileProxy(view); ok {
			proxy := u
			if g["GOPROXY"] != "" {
				proxy += "," + g["GOPROXY"]
			}
			env = append(env, "GOPROXY="+proxy)
		}
	}
	return env
}

// goCacheProg is the GOCACHEPROG command line, quoted as the go command
// splits it (cmd/internal/quoted: fields split at spaces, each may be
// quoted with ' or ", no escapes).
func (c *Caches) goCacheProg(private, user string) (string, bool) {
	exe := c.opts.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return "", false
		}
	}
	fields := []string{exe, goCacheArg, private, user}
	for i, f := range fields {
		switch {
		case !strings.ContainsAny(f, " \t\n'\""):
		case !strings.Contains(f, "'"):
			fields[i] = "'" + f + "'"
		case !strings.Contains(f, `"`):
			fields[i] = `"` + f + `"`
		default:
			return "", false
		}
	}
	return strings.Join(fields, " "), true
}

// syncTestExpire carries `go clean -testcache` over: test results older
// than the user's testexpire.txt are stale in the private cache too.
func syncTestExpire(user, private string) {
	// Commands may write the private cache, so its stamp may be anything
	// by now: a FIFO (whose open would wait for a writer) or a link to
	// /dev/zero. Only a small regular file is read, not through a link.
	stamp := func(dir string) int64 {
		f, err := os.OpenFile(filepath.Join(dir, "testexpire.txt"), os.O_RDONLY|stampFlags, 0)
		if err != nil {
			return 0
		}
		defer f.Close()
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			return 0
		}
		b, err := io.ReadAll(io.LimitReader(f, 64))
		if err != nil {
			return 0
		}
		n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return n
	}
	if u := stamp(user); u > stamp(private) {
		_ = writeInside(filepath.Dir(private), filepath.Join(filepath.Base(private), "testexpire.txt"), strconv.AppendInt(nil, u, 10))
	}
}

// writeInside writes data to dir/rel by a rename, resolving rel inside
// dir only. godwit writes into the caches outside the sandbox, and
// commands can write there: a link a command planted (go-build -> ~/.ssh)
// must not carry godwit's write out of dir (os.Root refuses to leave it).
func writeInside(dir, rel string, data []byte) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(rel, data, 0o644, atomicfile.InRoot(root), atomicfile.NoSync())
}

// linkDownloads makes view a module proxy of the user's downloaded
// modules, by links to their .info, .mod and .zip files; the version
// lists are left out, since they name only the versions the user
// downloaded, and a query for the latest must reach the user's proxy.
// Links already there stay; one to a file since removed reads as
// missing, which sends the go command to the next proxy.
func linkDownloads(src, view string) error {
	if !isDir(src) {
		return fmt.Errorf("%s is not a folder", src)
	}
	// Commands may write the view: every step below resolves inside
	// the caches' folder only (os.Root), so a folder of the view swapped
	// for a link out of it (@v -> ~/.ssh) fails instead of receiving
	// godwit's links.
	root, err := os.OpenRoot(filepath.Dir(view))
	if err != nil {
		return err
	}
	defer root.Close()
	base := filepath.Base(view)
	return filepath.WalkDir(src, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return nil // a folder that went away or cannot be read
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if rel == "sumdb" {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Base(filepath.Dir(p)) != "@v" {
			return nil
		}
		switch filepath.Ext(p) {
		case ".info", ".mod", ".zip":
		default:
			return nil // list, .lock, .ziphash, .partial
		}
		dst := filepath.Join(base, rel)
		if _, err := root.Lstat(dst); err == nil {
			return nil
		}
		if err := root.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := root.Symlink(p, dst); err != nil && !errors.Is(err, iofs.ErrExist) {
			return err
		}
		return nil
	})
}

// fileProxy is view as a GOPROXY entry; false when its path cannot be
// one (a comma or bar would split the list).
func fileProxy(view string) (string, bool) {
	if strings.ContainsAny(view, ",|") {
		return "", false
	}
	p := filepath.ToSlash(view)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x on Windows
	}
	return "file://" + p, true
}

// goEnv runs `go env -json names...` outside the workspace (whose go.mod
// must not choose a toolchain) with the local toolchain; nil without a
// go command. GOENV names the user's settings file, and the config
// folder is godwit's, under dir, with telemetry off: godwit's look must
// write nothing in the user's home. The go command comes from PATH's
// folders outside those commands may write (writable), since it runs
// outside the sandbox.
func goEnv(ctx context.Context, dir string, writable []string, names ...string) (map[string]string, error) {
	bin, err := hostpath.LookPath("go", writable...)
	if err != nil {
		return nil, nil
	}
	env := append(os.Environ(), "GOTOOLCHAIN=local", "GOWORK=off")
	if os.Getenv("GOENV") == "" {
		// Named outright: the config folder below is godwit's, which
		// commands may write.
		goenv := "off"
		if cfg, err := os.UserConfigDir(); err == nil {
			goenv = filepath.Join(cfg, "go", "env")
		}
		env = append(env, "GOENV="+goenv)
	}
	config := filepath.Join(dir, "go-config")
	mode := filepath.Join("go-config", "go", "telemetry", "mode")
	// Checked at every look, inside dir only: commands may write here,
	// and a folder swapped for a link into the user's ~/.config would
	// have godwit's go env count its run there.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	defer root.Close()
	if err := root.MkdirAll(filepath.Dir(mode), 0o755); err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	if b, err := root.ReadFile(mode); err != nil || strings.TrimSpace(string(b)) != "off" {
		if err := writeInside(dir, mode, []byte("off\n")); err != nil {
			return nil, fmt.Errorf("go env: %w", err)
		}
	}
	if real, err := filepath.EvalSymlinks(config); err != nil || real != filepath.Join(realPath(dir), "go-config") {
		return nil, fmt.Errorf("go env: %s does not resolve inside %s", config, dir)
	}
	// Not HOME: the caches' defaults derive from it. (Caches serve the
	// Landlock sandbox, so Linux, where the config folder is XDG's.)
	env = append(env, "XDG_CONFIG_HOME="+config)
	cmd := exec.CommandContext(ctx, bin, append([]string{"env", "-json"}, names...)...)
	cmd.Dir = config
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return nil, fmt.Errorf("go env: %w", err)
	}
	vals := map[string]string{}
	if err := json.Unmarshal(out, &vals); err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	return vals, nil
}

// writableSet answers whether a path lies in a folder commands may
// write, comparing real paths (a link in the way does not hide one).
type writableSet []string

func newWritableSet(dirs []string) writableSet {
	var w writableSet
	for _, d := range dirs {
		if d != "" {
			w = append(w, realPath(d))
		}
	}
	return w
}

func (w writableSet) holds(p string) bool {
	if p == "" || !filepath.IsAbs(p) {
		return false
	}
	p = realPath(p)
	for _, d := range w {
		if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// realPath resolves links in p's longest existing prefix.
func realPath(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

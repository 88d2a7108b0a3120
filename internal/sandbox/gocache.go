package sandbox

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/godwit/godwit/internal/atomicfile"
)

// goCacheArg marks the re-executed binary as a GOCACHEPROG (Go 1.24+,
// cmd/go/internal/cacheprog): `godwit __godwit_gocache PRIVATE USER`
// reads through to the user's GOCACHE without writing there, copying a
// hit into PRIVATE, and puts new outputs in PRIVATE only. Kept because
// a private cache without it recompiles the standard library: the
// first `go test ./...` of a one-dependency module took 133 s of CPU
// from an empty cache, 2 s through it. Both caches keep Go's layout
// (cmd/go/internal/cache), so a go command without GOCACHEPROG uses the
// private one natively. It runs inside the sandbox, as go's child.
const goCacheArg = "__godwit_gocache"

// An action entry "<aa>/<action hex>-a" holds one line
// "v1 <action hex> <output hex> <size, %20d> <unix nano, %20d>\n"; the
// output is "<oo>/<output hex>-d", a file or a folder holding one
// executable.
const (
	hashSize  = sha256.Size
	hexSize   = 2 * hashSize
	entrySize = 2 + 1 + hexSize + 1 + hexSize + 1 + 20 + 1 + 20 + 1
)

// Go's trimming: mtimes refreshed hourly, five-day-unused entries
// dropped daily.
const (
	mtimeInterval = time.Hour
	trimInterval  = 24 * time.Hour
	trimLimit     = 5 * 24 * time.Hour
)

// progRequest and progResponse are cmd/go/internal/cacheprog's Request
// and Response on the wire.
type progRequest struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

type progResponse struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// runGoCache serves the protocol on stdin and stdout until close or end
// of input. args are the private cache and the user's (which may be "").
func runGoCache(args []string) int {
	if len(args) < 1 || args[0] == "" {
		fmt.Fprintln(os.Stderr, "godwit gocache: usage: __godwit_gocache PRIVATE [USER]")
		return 2
	}
	c := &goCache{private: args[0], now: time.Now}
	if len(args) > 1 && args[1] != "" && filepath.Clean(args[1]) != filepath.Clean(args[0]) {
		c.user = args[1]
	}
	if err := c.serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "godwit gocache: %v\n", err)
		return 1
	}
	return 0
}

// goCache is one GOCACHEPROG process.
type goCache struct {
	private string // written and read
	user    string // read only; "" for none
	now     func() time.Time
}

// serve answers requests from r on w. Gets run concurrently (a copy from
// the user's cache may take a while); puts are read in order, since
// their bodies follow them on the stream.
func (c *goCache) serve(r io.Reader, w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	var mu sync.Mutex
	reply := func(res progResponse) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(res)
		_ = bw.Flush()
	}
	reply(progResponse{KnownCommands: []string{"get", "put", "close"}})
	dec := json.NewDecoder(bufio.NewReader(r))
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		var req progRequest
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading a request: %w", err)
		}
		switch req.Command {
		case "get":
			wg.Go(func() { reply(c.get(req)) })
		case "put":
			var body []byte
			if req.BodySize > 0 {
				if err := dec.Decode(&body); err != nil {
					return fmt.Errorf("reading the body of put %d: %w", req.ID, err)
				}
			}
			wg.Go(func() { reply(c.put(req, body)) })
		case "close":
			wg.Wait()
			c.trim()
			reply(progResponse{ID: req.ID})
			return nil
		default:
			reply(progResponse{ID: req.ID, Err: "unknown command " + strconv.Quote(req.Command)})
		}
	}
}

// get answers from the private cache, else from the user's through a
// copy; anything wrong with an entry is a miss, so the go command builds
// it again.
func (c *goCache) get(req progRequest) progResponse {
	miss := progResponse{ID: req.ID, Miss: true}
	if len(req.ActionID) != hashSize {
		return miss
	}
	if e, path, ok := lookup(c.private, req.ActionID); ok {
		c.markUsed(entryPath(c.private, req.ActionID, "a"))
		c.markUsed(path)
		return e.response(req.ID, path)
	}
	if c.user == "" {
		return miss
	}
	e, src, ok := lookup(c.user, req.ActionID)
	if !ok {
		return miss
	}
	path, err := c.copyOutput(src, e)
	if err != nil {
		return miss
	}
	if err := writeAtomic(entryPath(c.private, req.ActionID, "a"), e.line(req.ActionID)); err != nil {
		return miss
	}
	return e.response(req.ID, path)
}

// put stores an output and its entry in the private cache.
func (c *goCache) put(req progRequest, body []byte) progResponse {
	fail := func(err error) progResponse { return progResponse{ID: req.ID, Err: err.Error()} }
	if len(req.ActionID) != hashSize || len(req.OutputID) != hashSize {
		return fail(errors.New("put: bad action or output id"))
	}
	if int64(len(body)) != req.BodySize {
		return fail(fmt.Errorf("put: body of %d bytes, want %d", len(body), req.BodySize))
	}
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], req.OutputID) {
		return fail(errors.New("put: the body does not match its output id"))
	}
	path := entryPath(c.private, req.OutputID, "d")
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() || fi.Size() != req.BodySize {
		if err := writeAtomic(path, body); err != nil {
			return fail(fmt.Errorf("put: %w", err))
		}
	}
	e := entry{size: req.BodySize, time: c.now()}
	copy(e.out[:], req.OutputID)
	if err := writeAtomic(entryPath(c.private, req.ActionID, "a"), e.line(req.ActionID)); err != nil {
		return fail(fmt.Errorf("put: %w", err))
	}
	return progResponse{ID: req.ID, DiskPath: path}
}

// entry is an action entry's content.
type entry struct {
	out  [hashSize]byte
	size int64
	time time.Time
}

func (e entry) line(action []byte) []byte {
	return fmt.Appendf(nil, "v1 %x %x %20d %20d\n", action, e.out, e.size, e.time.UnixNano())
}

func (e entry) response(id int64, path string) progResponse {
	t := e.time
	return progResponse{ID: id, OutputID: e.out[:], Size: e.size, Time: &t, DiskPath: path}
}

// entryPath is Go's file name for an id in cache dir: "<dir>/<id[0]
// hex>/<id hex>-<kind>".
func entryPath(dir string, id []byte, kind string) string {
	return filepath.Join(dir, fmt.Sprintf("%02x", id[0]), hex.EncodeToString(id)+"-"+kind)
}

// lookup reads action's entry in cache dir and finds its output, checking
// what Go's own cache checks: the header, the id, the output's size. A
// cached executable is a folder holding one file; the file is returned.
func lookup(dir string, action []byte) (entry, string, bool) {
	var e entry
	f, err := os.Open(entryPath(dir, action, "a"))
	if err != nil {
		return e, "", false
	}
	buf := make([]byte, entrySize+1)
	n, _ := io.ReadFull(f, buf)
	f.Close()
	if n != entrySize {
		return e, "", false
	}
	line := string(buf[:n])
	fields := strings.Fields(line)
	if !strings.HasPrefix(line, "v1 ") || line[n-1] != '\n' || len(fields) != 5 ||
		fields[1] != hex.EncodeToString(action) || len(fields[2]) != hexSize {
		return e, "", false
	}
	if _, err := hex.Decode(e.out[:], []byte(fields[2])); err != nil {
		return e, "", false
	}
	size, err1 := strconv.ParseInt(fields[3], 10, 64)
	nano, err2 := strconv.ParseInt(fields[4], 10, 64)
	if err1 != nil || err2 != nil || size < 0 || nano < 0 {
		return e, "", false
	}
	e.size, e.time = size, time.Unix(0, nano)
	path := entryPath(dir, e.out[:], "d")
	fi, err := os.Stat(path)
	if err != nil {
		return e, "", false
	}
	if fi.IsDir() {
		names, err := readNames(path)
		if err != nil || len(names) != 1 {
			return e, "", false
		}
		path = filepath.Join(path, names[0])
		if fi, err = os.Stat(path); err != nil {
			return e, "", false
		}
	}
	if !fi.Mode().IsRegular() || fi.Size() != e.size {
		return e, "", false
	}
	return e, path, true
}

func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// copyOutput copies the user's output file src into the private cache at
// the same place (an executable keeps its folder, name and mode), checking
// that its content hashes to its output id, and returns the copy's path.
func (c *goCache) copyOutput(src string, e entry) (string, error) {
	dst := entryPath(c.private, e.out[:], "d")
	if filepath.Base(filepath.Dir(src)) == filepath.Base(dst) { // an executable's folder
		dst = filepath.Join(dst, filepath.Base(src))
	}
	if fi, err := os.Stat(dst); err == nil && fi.Mode().IsRegular() && fi.Size() == e.size {
		return dst, nil // another go command copied it
	}
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
		return "", err
	}
	// A cache: a copy lost to an OS crash is a miss (NoSync).
	tmp, err := atomicfile.Create(dst, fi.Mode().Perm(), atomicfile.NoSync())
	if err != nil {
		return "", err
	}
	defer tmp.Abort() // after Commit, nothing to remove
	h := sha256.New()
	switch n, err := io.Copy(io.MultiWriter(tmp, h), in); {
	case err != nil:
		return "", err
	case n != e.size || !bytes.Equal(h.Sum(nil), e.out[:]):
		return "", errors.New("the user's cache entry does not match its output id")
	}
	if err := tmp.Commit(); err != nil {
		return "", err
	}
	return dst, nil
}

// writeAtomic writes data to path by a rename, so a concurrent reader
// (another go command) sees the old file or the whole new one; mode 0644
// as Go writes them (0666 less the usual umask). Not synced: a lost
// entry is a miss, and a build writes thousands.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o644, atomicfile.NoSync())
}

// markUsed refreshes a private entry's mtime, at most once an hour, as
// Go's cache does, so trimming keeps what is used.
func (c *goCache) markUsed(path string) {
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	if now := c.now(); now.Sub(fi.ModTime()) >= mtimeInterval {
		_ = os.Chtimes(path, now, now)
	}
}

// trim removes private entries unused for five days, at most once a day,
// as Go's cache does; Go does not trim a cache it reaches through
// GOCACHEPROG.
func (c *goCache) trim() {
	stamp := filepath.Join(c.private, "trim.txt")
	now := c.now()
	if b, err := os.ReadFile(stamp); err == nil {
		if t, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			if d := now.Sub(time.Unix(t, 0)); d < trimInterval && d > -mtimeInterval {
				return
			}
		}
	}
	if err := writeAtomic(stamp, strconv.AppendInt(nil, now.Unix(), 10)); err != nil {
		return
	}
	cutoff := now.Add(-trimLimit - mtimeInterval)
	for i := range 256 {
		sub := filepath.Join(c.private, fmt.Sprintf("%02x", i))
		names, err := readNames(sub)
		if err != nil {
			continue
		}
		for _, name := range names {
			if !strings.HasSuffix(name, "-a") && !strings.HasSuffix(name, "-d") {
				continue
			}
			p := filepath.Join(sub, name)
			if fi, err := os.Lstat(p); err == nil && fi.ModTime().Before(cutoff) {
				_ = os.RemoveAll(p)
			}
		}
	}
}

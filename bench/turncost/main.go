// Command turncost measures what a long day costs godwit itself, with the
// real binary against a local endpoint (Chat Completions) whose scripted
// model reads the file each prompt names and then answers (issue 17):
//
//   - resident: one `godwit acp` process serves many prompts; its CPU per
//     model request, with requests of tens of thousands of tokens that
//     are mostly tool output (Go source files of 8-24 KB);
//   - per-turn: one `godwit run --session` process per turn; the CPU of
//     each, first turn against the last;
//   - database: the file's growth per byte of tool output.
//
// CPU is user+system time of the godwit process (the endpoint runs in
// this process and is not counted):
//
//	go run ./bench/turncost [-turns 300] [-prompts 150] [-window 128000]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/tiktoken-go/tokenizer"

	"github.com/godwit/godwit/llm/llmtest"
)

func main() {
	turns := flag.Int("turns", 300, "turns of the per-turn session (one process each); 0 skips it")
	prompts := flag.Int("prompts", 150, "prompts to the resident process; 0 skips it")
	window := flag.Int("window", 128_000, "the model's context window")
	bin := flag.String("godwit", "", "the godwit binary (default: build ./cmd/godwit)")
	keep := flag.String("keep", "", "keep the home and workspace in this directory")
	flag.StringVar(&wrap, "wrap", "", "run the first and last turn processes under this command, e.g. \"valgrind --tool=callgrind\" for repeatable instruction counts (its CPU is then the wrapper's)")
	flag.StringVar(&homeDir, "home", "", "run the per-turn phase in this GODWIT_HOME (its config is rewritten), continuing its last session from turn -from")
	flag.IntVar(&fromTurn, "from", 1, "the first turn's number, with -home")
	flag.Parse()
	if err := run(*turns, *prompts, *window, *bin, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "turncost:", err)
		os.Exit(1)
	}
}

func run(turns, prompts, window int, bin, keep string) error {
	ctx := context.Background()
	dir := keep
	if dir == "" {
		d, err := os.MkdirTemp("", "turncost")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	if bin == "" {
		bin = filepath.Join(dir, "godwit")
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/godwit")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("building godwit: %w\n%s", err, out)
		}
	}
	files, err := goFiles(max(fromTurn+turns-1, prompts))
	if err != nil {
		return err
	}
	ws := filepath.Join(dir, "ws")
	for i, text := range files {
		p := filepath.Join(ws, fileName(i+1))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	ep, err := startEndpoint()
	if err != nil {
		return err
	}
	defer ep.srv.Close()
	// Each phase has a home of its own, so the database holds one
	// session.
	newHome := func(name string) (string, []string, error) {
		home := filepath.Join(dir, name)
		if homeDir != "" && name == "home-perturn" {
			home = homeDir
		}
		if err := os.MkdirAll(home, 0o755); err != nil {
			return "", nil, err
		}
		cfg := fmt.Sprintf("providers:\n  bench:\n    type: openai-chat\n    base_url: %s/v1\n    no_key: true\n    models:\n      - id: m\n        context_window: %d\n        max_output: 8192\n", ep.srv.URL(), window)
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
			return "", nil, err
		}
		return home, append(os.Environ(), "GODWIT_HOME="+home), nil
	}
	fmt.Printf("godwit %s, window %d, %d Go files of %d-%d KB, GOMAXPROCS %d\n", bin, window, len(files), minKB, maxKB, runtime.GOMAXPROCS(0))
	if prompts > 0 {
		_, env, err := newHome("home-resident")
		if err != nil {
			return err
		}
		if err := resident(ctx, bin, env, ws, ep, prompts); err != nil {
			return fmt.Errorf("resident: %w", err)
		}
	}
	if turns > 0 {
		home, env, err := newHome("home-perturn")
		if err != nil {
			return err
		}
		if err := perTurn(ctx, bin, env, ws, home, ep, turns); err != nil {
			return fmt.Errorf("per-turn: %w", err)
		}
	}
	return nil
}

// homeDir and fromTurn continue a session kept by an earlier run.
var (
	homeDir  string
	fromTurn = 1
)

// wrap prefixes the first and last turn processes.
var wrap string

func fileName(i int) string { return fmt.Sprintf("src/f%04d.go", i) }

const minKB, maxKB = 8, 24

// goFiles returns n Go files of Go's own source, 8-24 KB each, in a
// fixed order.
func goFiles(n int) ([]string, error) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("finding Go's source tree with go env GOROOT: %w", err)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	var paths []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.Contains(p, "testdata") {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.Size() >= minKB<<10 && fi.Size() <= maxKB<<10 {
			paths = append(paths, p)
		}
		return nil
	})
	slices.Sort(paths)
	if len(paths) < n {
		return nil, fmt.Errorf("only %d Go files of %d-%d KB under %s", len(paths), minKB, maxKB, root)
	}
	var out []string
	step := len(paths) / n
	for i := range n {
		b, err := os.ReadFile(paths[i*step])
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	return out, nil
}

// endpoint is the scripted model: a user message naming a file gets a
// file_read of it; a tool result gets a one-line answer. It counts the
// requests, their o200k tokens and the tool output they carry.
type endpoint struct {
	srv *llmtest.Server
	enc tokenizer.Codec

	mu       sync.Mutex
	requests int
	tokens   []int
	outBytes int // tool output bytes, each output counted once
	seen     map[string]bool
	calls    int
}

func startEndpoint() (*endpoint, error) {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, err
	}
	e := &endpoint{enc: enc, seen: map[string]bool{}}
	e.srv = llmtest.NewFuncServer(e.serve)
	return e, nil
}

// reset zeroes the counts and returns the previous ones.
func (e *endpoint) reset() (requests int, tokens []int, outBytes int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	requests, tokens, outBytes = e.requests, e.tokens, e.outBytes
	e.requests, e.tokens, e.outBytes = 0, nil, 0
	return
}

type chatRequest struct {
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
}

func (e *endpoint) serve(in llmtest.Captured) llmtest.Reply {
	var req chatRequest
	if err := json.Unmarshal(in.Body, &req); err != nil || len(req.Messages) == 0 {
		return llmtest.JSON(http.StatusBadRequest, `{"error":{"message":"turncost: bad request"}}`)
	}
	tokens := 0
	for _, m := range req.Messages {
		n, _ := e.enc.Count(llmtest.ContentText(m.Content))
		tokens += n
	}
	last := req.Messages[len(req.Messages)-1]
	e.mu.Lock()
	e.requests++
	e.tokens = append(e.tokens, tokens)
	if last.Role == "tool" && !e.seen[last.ToolCallID] {
		e.seen[last.ToolCallID] = true
		e.outBytes += len(llmtest.ContentText(last.Content))
	}
	e.calls++
	id := fmt.Sprintf("call_%06d", e.calls)
	e.mu.Unlock()
	var events []string
	if file := named(llmtest.ContentText(last.Content)); last.Role == "user" && file != "" {
		events = append(events, llmtest.ChatToolCallAt(0, id, "file_read", fmt.Sprintf(`{"path":%q}`, file)), llmtest.ChatFinish("tool_calls"))
	} else {
		events = append(events, llmtest.ChatText("Read it: the file is Go source."), llmtest.ChatFinish("stop"))
	}
	return llmtest.ChatReply(append(events, llmtest.ChatUsageCached(int64(tokens), 10, 0))...)
}

// named is the file a prompt asks to read ("read src/f0001.go"), if any.
func named(prompt string) string {
	i := strings.Index(prompt, "src/f")
	if i < 0 || len(prompt) < i+len("src/f0000.go") {
		return ""
	}
	return prompt[i : i+len("src/f0000.go")]
}

func prompt(i int) string {
	return fmt.Sprintf("Turn %d: read %s and say in one line what it is.", i, fileName(i))
}

// cpu is the user+system time of a live process, from /proc.
func cpu(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100, nil // USER_HZ
}

// peakRSS is a live process's peak resident set (VmHWM), as text.
func peakRSS(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return fmt.Sprintf("%d MiB", kb>>10)
		}
	}
	return "unknown"
}

// client is an ACP client that answers session updates and permission
// requests only: it advertises no file or terminal capability, so godwit
// calls none of the methods the nil embedded Client would panic on.
type client struct{ sdk.Client }

func (client) SessionUpdate(context.Context, sdk.SessionNotification) error { return nil }
func (client) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected("allow_once")}, nil
}

// warmup prompts are left out of the resident figure: they fill the
// window to its working size.
const warmup = 20

func resident(ctx context.Context, bin string, env []string, ws string, ep *endpoint, prompts int) error {
	cmd := exec.CommandContext(ctx, bin, "acp", "--model", "bench/m", "--mode", "read-only")
	cmd.Env, cmd.Dir, cmd.Stderr = env, ws, os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { in.Close(); _ = cmd.Wait() }()
	conn := sdk.NewClientSideConnection(client{}, in, out)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		return err
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		return err
	}
	ep.reset()
	var before time.Duration
	start := time.Now()
	for i := 1; i <= prompts; i++ {
		if i == warmup+1 {
			ep.reset()
			if before, err = cpu(cmd.Process.Pid); err != nil {
				return err
			}
			start = time.Now()
		}
		if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(prompt(i))}}); err != nil {
			return fmt.Errorf("prompt %d: %w", i, err)
		}
	}
	after, err := cpu(cmd.Process.Pid)
	if err != nil {
		return err
	}
	wall := time.Since(start)
	reqs, tokens, _ := ep.reset()
	if reqs == 0 {
		return errors.New("no model requests after the warm-up")
	}
	slices.Sort(tokens)
	mean := 0
	for _, t := range tokens {
		mean += t
	}
	mean /= len(tokens)
	fmt.Printf("resident (godwit acp): prompts %d-%d, %d model requests of %d tokens on average (median %d, max %d)\n",
		warmup+1, prompts, reqs, mean, tokens[len(tokens)/2], tokens[len(tokens)-1])
	fmt.Printf("  godwit CPU %.0f ms in all, %.2f ms per model request (wall %.1f s), %s peak RSS\n",
		ms(after-before), ms(after-before)/float64(reqs), wall.Seconds(), peakRSS(cmd.Process.Pid))
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "    " + strings.Join(lines, "\n    ") + "\n"
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

type turnCost struct {
	cpu   time.Duration
	rssKB int64
}

func perTurn(ctx context.Context, bin string, env []string, ws, home string, ep *endpoint, turns int) error {
	db := filepath.Join(home, "godwit.db")
	var costs []turnCost
	var sizes []int64
	ep.reset()
	var outs []int // tool output bytes up to each turn
	outBytes := 0
	last := fromTurn + turns - 1
	for i := fromTurn; i <= last; i++ {
		args := []string{"run", "--model", "bench/m", "--prompt", prompt(i)}
		if i > 1 {
			args = append(args, "--session", "last")
		}
		name, cmdArgs := bin, args
		if wrap != "" && (i == fromTurn || i == last) {
			w := strings.Fields(wrap)
			name, cmdArgs = w[0], append(append(w[1:], bin), args...)
		}
		cmd := exec.CommandContext(ctx, name, cmdArgs...)
		cmd.Env, cmd.Dir = env, ws
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("turn %d: %w\n%s", i, err, stderr.String())
		}
		if wrap != "" && (i == fromTurn || i == last) {
			fmt.Printf("  turn %d under %s:\n%s", i, wrap, lastLines(stderr.String(), 12))
		}
		ps := cmd.ProcessState
		c := turnCost{cpu: ps.UserTime() + ps.SystemTime(), rssKB: maxRSSKB(ps)}
		costs = append(costs, c)
		fi, err := os.Stat(db)
		if err != nil {
			return err
		}
		sizes = append(sizes, fi.Size())
		_, _, ob := ep.reset()
		outBytes += ob
		outs = append(outs, outBytes)
	}
	med := func(cs []turnCost) (float64, int64) {
		ts := make([]float64, len(cs))
		rs := make([]int64, len(cs))
		for i, c := range cs {
			ts[i], rs[i] = ms(c.cpu), c.rssKB
		}
		slices.Sort(ts)
		slices.Sort(rs)
		return ts[len(ts)/2], rs[len(rs)/2]
	}
	first, firstRSS := ms(costs[0].cpu), costs[0].rssKB
	fmt.Printf("per-turn (godwit run --session last, one process a turn): %d turns\n", turns)
	fmt.Printf("  turn 1: %.0f ms CPU, %d MiB peak RSS\n", first, firstRSS>>10)
	done := 1
	for _, r := range [][2]int{{2, 11}, {turns/2 - 4, turns/2 + 5}, {turns - 9, turns}} {
		lo, hi := max(r[0], done+1), min(r[1], turns)
		if lo > hi {
			continue
		}
		done = hi
		m, rss := med(costs[lo-1 : hi])
		fmt.Printf("  turns %d-%d: median %.0f ms CPU (%.2fx turn 1), %d MiB peak RSS\n", lo, hi, m, m/first, rss>>10)
	}
	size := sizes[len(sizes)-1]
	fmt.Printf("  database %.1f MB for %.2f MB of tool output: %.2f bytes per byte", float64(size)/1e6, float64(outBytes)/1e6, float64(size)/float64(max(outBytes, 1)))
	if n := len(sizes); n > 20 {
		fmt.Printf(" (turns %d-%d: %.2f)", n/2+1, n, float64(sizes[n-1]-sizes[n/2-1])/float64(max(outs[n-1]-outs[n/2-1], 1)))
	}
	fmt.Println()
	return nil
}

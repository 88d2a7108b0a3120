package shell

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// Name is the model-facing tool name.
const Name = "shell_exec"

// Defaults for Options left zero.
const (
	DefaultTimeout     = 120 * time.Second
	DefaultMaxTimeout  = 10 * time.Minute
	DefaultOutputLimit = 30 << 10
	DefaultKillGrace   = 2 * time.Second
	DefaultLogLimit    = 16 << 20
)

// Options configure a Shell.
type Options struct {
	// Workdir is the absolute workspace root every command starts in.
	Workdir string
	// Env is added to the process environment (later entries win), for
	// example TMPDIR pointing at a private temp folder.
	Env []string
	// Secrets names more variables commands must not see, besides every
	// *_API_KEY: provider keys kept under other names (a provider's
	// api_key_env in config.yaml).
	Secrets []string
	// DefaultTimeout bounds a foreground command without timeout_s.
	DefaultTimeout time.Duration
	// MaxTimeout is the largest timeout_s the model may ask for.
	MaxTimeout time.Duration
	// OutputLimit is how many bytes of output the model gets back from
	// one call; beyond it the middle is cut and a note says how much.
	OutputLimit int
	// KillGrace is how long a process group gets between SIGTERM and
	// SIGKILL.
	KillGrace time.Duration
	// JobsDir holds background job logs; default <Workdir>/.godwit/run.
	JobsDir string
	// LogLimit is the most bytes a job's log keeps (its end, behind a
	// note of what was dropped); default DefaultLogLimit.
	LogLimit int64
	// Logger receives kills and anomalies; nil discards.
	Logger *slog.Logger
	// Wrap, when set, is called on every command just before it starts,
	// after its directory, environment, stdio and process-group
	// attributes are set. The safety layer uses it to run the command in
	// a sandbox (for example by rewriting Path and Args to a helper that
	// applies Landlock and then execs the original). It must keep
	// SysProcAttr's process-group settings. An error refuses the command.
	Wrap func(cmd *exec.Cmd) error
	// ReadOnlyWrap, when set, replaces Wrap for a command the approver
	// allowed only because it reads (tool.ConfinementFrom(ctx) is
	// tool.ConfineReadOnly): the safety layer passes a sandbox with no
	// writes and no network, so a mistake in the read-only list cannot
	// change anything. Nil keeps Wrap for every command.
	ReadOnlyWrap func(cmd *exec.Cmd) error
	// WriteWrap, when set, replaces Wrap for a command a person allowed
	// to write though the session is read-only (tool.ConfineWrite): the
	// sandbox of ask mode. Nil keeps Wrap.
	WriteWrap func(cmd *exec.Cmd) error
	// Terminal, when set, runs foreground commands instead of a local
	// process group (an editor's terminal, over ACP); background jobs
	// still run locally. Nil runs everything locally.
	Terminal Terminal
	// Now returns the current time; nil means time.Now. Only ages and
	// durations shown to the model use it.
	Now func() time.Time
	// NoJobs leaves background jobs out (a sub-agent's shell, which must
	// leave nothing running): the tool takes command and timeout_s only.
	NoJobs bool
	// Track, when set, is told of every command started here (foreground
	// or job) with the call's context, so that the safety layer can
	// record its process group and end it should godwit die first. The
	// function it returns is called once the command and every process it
	// started have ended, with how the command ended ("exit 0", "killed",
	// "signal: killed"); Close waits for those calls.
	Track func(ctx context.Context, c Started) (ended func(how string))
}

// Started is a command as Options.Track hears of it.
type Started struct {
	// Identity is the group leader's: the supervisor, or the shell when
	// commands are not supervised. Its pid is also the process group id.
	Identity
	Command    string
	Job        string // the job id; "" for a foreground command
	Supervised bool   // the leader holds the whole tree (see MaybeSupervise)
}

// Shell is the shell_exec tool. It is safe for concurrent use. Its job
// table lives as long as the Shell: one Shell per session, closed when
// the session ends.
type Shell struct {
	opts      Options
	shellPath string // resolved interpreter
	shellName string // "bash", "sh" or "powershell"
	log       *slog.Logger
	spec      llm.ToolSpec

	mu       sync.Mutex         // guards the fields below
	closed   bool               // Close was called; nothing new may start
	jobs     map[string]*job    // background jobs by id
	order    []string           // job ids in start order
	nextJob  int                // number of the next job id
	fgProcs  map[*proc]struct{} // foreground commands running now
	madeDirs bool               // JobsDir exists
	// lifeline is the pipe every supervisor reads (see supervise.go):
	// only this process holds the write end. Made at the first command.
	lifeR, lifeW *os.File

	exe      string         // this executable, when commands are supervised
	tracking sync.WaitGroup // Options.Track end calls still to come
}

//go:embed description.md
var description string

// New returns a Shell. Zero options take the package defaults.
func New(opts Options) *Shell {
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = DefaultTimeout
	}
	if opts.MaxTimeout <= 0 {
		opts.MaxTimeout = DefaultMaxTimeout
	}
	if opts.DefaultTimeout > opts.MaxTimeout {
		opts.DefaultTimeout = opts.MaxTimeout
	}
	if opts.OutputLimit <= 0 {
		opts.OutputLimit = DefaultOutputLimit
	}
	if opts.KillGrace <= 0 {
		opts.KillGrace = DefaultKillGrace
	}
	if opts.LogLimit <= 0 {
		opts.LogLimit = DefaultLogLimit
	}
	if opts.JobsDir == "" && opts.Workdir != "" {
		opts.JobsDir = filepath.Join(opts.Workdir, ".godwit", "run")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	path, name := findShell()
	exe := ""
	if supervisorReady.Load() {
		if e, err := os.Executable(); err == nil {
			exe = e
		} else {
			log.Warn("shell: cannot find godwit's own executable, so commands run without a supervisor; processes that leave their group may outlive godwit", "err", err)
		}
	}
	s := &Shell{
		exe:       exe,
		opts:      opts,
		shellPath: path,
		shellName: name,
		log:       log,
		jobs:      make(map[string]*job),
		fgProcs:   make(map[*proc]struct{}),
	}
	desc := strings.TrimSpace(strings.ReplaceAll(description, "{shell}", name))
	sch := schema(opts.DefaultTimeout, opts.MaxTimeout)
	if opts.NoJobs {
		desc, _, _ = strings.Cut(desc, " Use background:true")
		sch = foregroundSchema(opts.DefaultTimeout, opts.MaxTimeout)
	}
	s.spec = llm.ToolSpec{Name: Name, Description: desc, Schema: sch}
	return s
}

// foregroundSchema is the schema of a shell without jobs.
func foregroundSchema(def, max time.Duration) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
		`"command":{"type":"string"},`+
		`"timeout_s":{"type":"number","description":"Limit in seconds (default %s, max %s)."}`+
		`},"required":["command"],"additionalProperties":false}`,
		seconds(def), seconds(max)))
}

func schema(def, max time.Duration) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
		`"action":{"type":"string","enum":["run","list","status","logs","stop"],"description":"Default run."},`+
		`"command":{"type":"string","description":"For run."},`+
		`"timeout_s":{"type":"number","description":"Foreground run limit in seconds (default %s, max %s)."},`+
		`"background":{"type":"boolean","description":"Start as a job; returns its job_id at once."},`+
		`"job_id":{"type":"string","description":"For status, logs, stop."},`+
		`"lines":{"type":"integer","description":"For status/logs: last N log lines (default %d/%d)."}`+
		`},"additionalProperties":false}`,
		seconds(def), seconds(max), defaultStatusLines, defaultLogLines))
}

// Kind names the interpreter commands run in: "bash", "sh" or
// "powershell", for the system prompt.
func (s *Shell) Kind() string { return s.shellName }

// Name implements tool.Tool.
func (s *Shell) Name() string { return Name }

// Spec implements tool.Tool.
func (s *Shell) Spec() llm.ToolSpec { return s.spec }

// Actions.
const (
	actRun    = "run"
	actList   = "list"
	actStatus = "status"
	actLogs   = "logs"
	actStop   = "stop"
)

// args are the model's arguments, decoded strictly: an unknown field
// (say "cwd") is refused rather than ignored, since ignoring it could run
// a command somewhere the model did not mean.
type args struct {
	Action     string   `json:"action"`
	Command    string   `json:"command"`
	TimeoutS   *float64 `json:"timeout_s"`
	Background bool     `json:"background"`
	JobID      string   `json:"job_id"`
	Lines      *int     `json:"lines"`
}

const argNames = "action, command, timeout_s, background, job_id, lines"

func badArgs(remedy, format string, a ...any) *tool.ToolError {
	return tool.Errorf(tool.CodeBadArgs, remedy, format, a...)
}

func (s *Shell) parse(raw json.RawMessage) (args, error) {
	var a args
	dec := json.NewDecoder(strings.NewReader(string(llm.ArgsOrEmpty(raw))))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, badArgs("shell_exec takes "+argNames+"; send one JSON object with those fields.",
			"bad arguments: %v", err)
	}
	if a.Action == "" {
		a.Action = actRun
	}
	if s.opts.NoJobs && (a.Action != actRun || a.Background || a.JobID != "" || a.Lines != nil) {
		return a, badArgs("Send command (and timeout_s) only.", "this shell runs foreground commands only: no background jobs")
	}
	only := func(field, actions string) error {
		return badArgs("Drop "+field+"; it is only for "+actions+".", "%s does not apply to action %q", field, a.Action)
	}
	switch a.Action {
	case actRun:
		if strings.TrimSpace(a.Command) == "" {
			return a, badArgs("Give the command to run in command.", "command is empty")
		}
		if a.JobID != "" {
			return a, only("job_id", "status, logs and stop")
		}
		if a.Lines != nil {
			return a, only("lines", "status and logs")
		}
		if a.TimeoutS != nil {
			if a.Background {
				return a, badArgs("Drop timeout_s: a background job runs until stop or the end of the session.",
					"timeout_s does not apply to background jobs")
			}
			t := *a.TimeoutS
			if t <= 0 || t > s.opts.MaxTimeout.Seconds() {
				return a, badArgs(fmt.Sprintf("Use 0 < timeout_s <= %s; for longer work use background:true.",
					seconds(s.opts.MaxTimeout)), "timeout_s %v is out of range", t)
			}
		}
	case actList, actStatus, actLogs, actStop:
		if a.Command != "" {
			return a, only("command", "run (the default action)")
		}
		if a.TimeoutS != nil || a.Background {
			return a, only("timeout_s and background", "run")
		}
		if a.Action == actList && a.JobID != "" {
			return a, badArgs("Use action status to see one job.", "list takes no job_id")
		}
		if a.Action != actList && a.JobID == "" {
			return a, badArgs("Give job_id (see action list).", "%s needs job_id", a.Action)
		}
		if a.Lines != nil && a.Action != actStatus && a.Action != actLogs {
			return a, only("lines", "status and logs")
		}
		if a.Lines != nil && *a.Lines <= 0 {
			return a, badArgs("Use a positive lines, or leave it out.", "lines must be positive, got %d", *a.Lines)
		}
	default:
		return a, badArgs("Use action run, list, status, logs or stop.", "unknown action %q", a.Action)
	}
	return a, nil
}

// Access implements tool.Accessor. A command can touch anything, so run
// is exclusive and mutating; the job actions only read the job table, and
// stop ends a process this session started.
func (s *Shell) Access(raw json.RawMessage) (tool.Access, error) {
	a, err := s.parse(raw)
	if err != nil {
		return tool.Access{}, err
	}
	switch a.Action {
	case actRun:
		acc := tool.Access{Exclusive: true, Mutates: true, Command: a.Command}
		prefix := "run: "
		if a.Background {
			prefix = "run in background: "
		}
		acc.Summary = prefix + oneLine(a.Command, 80)
		if acc.Summary != prefix+a.Command {
			acc.Preview = a.Command
		}
		return acc, nil
	case actList:
		return tool.Access{Summary: "list jobs"}, nil
	default:
		return tool.Access{Summary: a.Action + " job " + a.JobID}, nil
	}
}

// ErrClosed is returned by Run after Close.
var ErrClosed = errors.New("shell: closed: the session has ended")

// Run implements tool.Tool.
func (s *Shell) Run(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	a, err := s.parse(raw)
	if err != nil {
		return tool.Result{}, err
	}
	if !filepath.IsAbs(s.opts.Workdir) {
		return tool.Result{}, tool.Fatal(fmt.Errorf("shell: Options.Workdir must be an absolute path, got %q", s.opts.Workdir))
	}
	switch a.Action {
	case actRun:
		if a.Background {
			return s.startJob(ctx, a.Command)
		}
		if err := ctx.Err(); err != nil {
			return tool.Result{}, err // do not start what would be killed at once
		}
		timeout := s.opts.DefaultTimeout
		if a.TimeoutS != nil {
			timeout = time.Duration(*a.TimeoutS * float64(time.Second))
		}
		return s.runForeground(ctx, a.Command, timeout)
	case actList:
		return s.listJobs(), nil
	case actStatus:
		return s.jobStatus(a.JobID, a.Lines)
	case actLogs:
		return s.jobLogs(a.JobID, a.Lines)
	case actStop:
		return s.stopJob(a.JobID)
	}
	return tool.Result{}, fmt.Errorf("shell: unhandled action %q", a.Action)
}

// Close kills every process group still running (background jobs and
// any foreground command), waits for them to die, and refuses new
// commands. Job logs stay on disk. Close is safe to call more than once.
func (s *Shell) Close() error {
	s.mu.Lock()
	s.closed = true
	var procs []*proc
	for p := range s.fgProcs {
		procs = append(procs, p)
	}
	for _, id := range s.order {
		procs = append(procs, s.jobs[id].proc)
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(func() { p.stop(s.opts.KillGrace, s.log) })
	}
	wg.Wait()
	s.mu.Lock()
	jobs := make([]*job, 0, len(s.order))
	for _, id := range s.order {
		jobs = append(jobs, s.jobs[id])
	}
	s.mu.Unlock()
	for _, j := range jobs {
		wg.Go(func() {
			j.drain()
			j.log.f.Close()
		})
	}
	wg.Wait()
	tracked := make(chan struct{})
	go func() { s.tracking.Wait(); close(tracked) }()
	select {
	case <-tracked:
	case <-time.After(5 * time.Second): // a leader that could not be killed
		s.log.Warn("shell: a command did not end at close; its record stays running")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lifeW != nil {
		// Every supervisor still alive (none should be) ends its tree.
		s.lifeW.Close()
		s.lifeR.Close()
		s.lifeW, s.lifeR = nil, nil
	}
	return nil
}

// command builds the exec.Cmd for a command line.
func (s *Shell) command(line string) *exec.Cmd {
	cmd := exec.Command(s.shellPath, shellArgs(line)...)
	cmd.Dir = s.opts.Workdir
	// Quiet, non-interactive defaults: no colour codes spent as tokens, no
	// pager, no credential prompt waiting forever. Options.Env wins.
	env := append(inherited(os.Environ(), s.opts.Secrets), "NO_COLOR=1", "TERM=dumb", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	cmd.Env = append(env, s.opts.Env...)
	setGroup(cmd)
	return cmd // Stdin nil: os/exec connects /dev/null
}

// inherited is the environment a command starts with: godwit's own,
// which is the user's real environment plus what the user's
// $GODWIT_HOME/.env sets (a workspace's .env gives only provider keys,
// see internal/cli's LoadEnvFiles), without the model providers' keys:
// `env` or a script printing it would otherwise put the user's keys in
// front of the model and into the session record. Anything named
// *_API_KEY is dropped, and the names in secrets; a command that needs
// such a key gets it through Options.Env. So BASH_ENV, PATH, LD_*, GIT_*
// and the like reach commands only from the user's own environment.
func inherited(environ, secrets []string) []string {
	out := environ[:0:0]
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(strings.ToUpper(name), "_API_KEY") || slices.Contains(secrets, name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// wrapFor picks the sandbox for the call in ctx: ReadOnlyWrap when the
// approver confined it to reading, WriteWrap when a person allowed it to
// write in read-only mode, else Wrap.
func (s *Shell) wrapFor(ctx context.Context) func(*exec.Cmd) error {
	switch c := tool.ConfinementFrom(ctx); {
	case c == tool.ConfineReadOnly && s.opts.ReadOnlyWrap != nil:
		return s.opts.ReadOnlyWrap
	case c == tool.ConfineWrite && s.opts.WriteWrap != nil:
		return s.opts.WriteWrap
	}
	return s.opts.Wrap
}

// startLocked wraps, supervises and starts cmd; s.mu must be held, so
// that Close cannot miss a process. job is the job id, "" for a
// foreground command, which is registered as one.
func (s *Shell) startLocked(ctx context.Context, cmd *exec.Cmd, line, job string) (*proc, error) {
	if wrap := s.wrapFor(ctx); wrap != nil {
		if err := wrap(cmd); err != nil {
			return nil, tool.Errorf(tool.CodeDenied, "Do not retry; tell the user the sandbox refused the command.",
				"the command could not be sandboxed: %v", err)
		}
	}
	if s.closed {
		return nil, ErrClosed
	}
	var status, statusW *os.File
	if s.exe != "" {
		if s.lifeW == nil {
			r, w, err := os.Pipe()
			if err != nil {
				return nil, fmt.Errorf("shell: lifeline pipe: %w", err)
			}
			s.lifeR, s.lifeW = r, w
		}
		var err error
		if status, statusW, err = superviseCmd(cmd, s.exe, s.lifeR, s.opts.KillGrace); err != nil {
			return nil, err
		}
	}
	p, err := startProc(cmd, s.opts.Now, status, statusW)
	if err != nil {
		return nil, tool.Errorf(tool.CodeFailed, "Tell the user: the shell itself could not start.",
			"could not start %s: %v", s.shellName, err)
	}
	if job == "" {
		s.fgProcs[p] = struct{}{}
	}
	if s.opts.Track != nil {
		id, ok := Lookup(p.pid)
		if !ok {
			id = Identity{PID: p.pid} // already gone: nothing to end later
		}
		ended := s.opts.Track(ctx, Started{Identity: id, Command: line, Job: job, Supervised: p.supervised})
		s.tracking.Add(1)
		go func() {
			defer s.tracking.Done()
			<-p.done
			ended(p.describe())
		}()
	}
	return p, nil
}

// oneLine shortens s to one line of at most n runes for display.
func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

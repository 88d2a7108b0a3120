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

// DefaultTimeout bounds a foreground command without timeout_s, which may
// be at most DefaultMaxTimeout; the others are defaults for Options left
// zero.
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
	// Secrets names variables commands must not see besides every
	// *_API_KEY (a provider's api_key_env).
	Secrets []string
	// OutputLimit is the most output bytes one call returns; beyond it
	// the middle is cut, with a note.
	OutputLimit int
	// KillGrace is the time between SIGTERM and SIGKILL.
	KillGrace time.Duration
	// LogLimit is the most bytes a job's log keeps (its end).
	LogLimit int64
	// Logger receives kills and anomalies; nil discards.
	Logger *slog.Logger
	// Wrap, when set, is called on every command just before it starts,
	// with everything else set; the safety layer sandboxes it there. It
	// must keep SysProcAttr's process-group settings. An error refuses
	// the command.
	Wrap func(cmd *exec.Cmd) error
	// ReadOnlyWrap replaces Wrap for a command the approver allowed only
	// because it reads (tool.ConfineReadOnly): no writes, no network.
	ReadOnlyWrap func(cmd *exec.Cmd) error
	// WriteWrap replaces Wrap for a command a person allowed to write in
	// a read-only session (tool.ConfineWrite).
	WriteWrap func(cmd *exec.Cmd) error
	// Terminal, when set, runs foreground commands (an editor's terminal);
	// background jobs always run locally.
	Terminal Terminal
	// NoJobs leaves background jobs out (a sub-agent's shell must leave
	// nothing running).
	NoJobs bool
	// Track, when set, is told of every command started, so the safety
	// layer can record its process group. The function it returns is
	// called once the command and all it started have ended, with how it
	// ended ("exit 0", "killed"); Close waits for those calls.
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

// Shell is the shell_exec tool, one per session. It is safe for
// concurrent use.
type Shell struct {
	opts      Options
	jobsDir   string // the job logs' folder, <Workdir>/.godwit/run
	shellPath string // resolved interpreter
	shellName string // "bash", "sh" or "powershell"
	log       *slog.Logger
	spec      llm.ToolSpec

	mu           sync.Mutex         // guards the fields below
	closed       bool               // Close was called; nothing new may start
	jobs         map[string]*job    // background jobs by id
	order        []string           // job ids in start order
	nextJob      int                // number of the next job id
	fgProcs      map[*proc]struct{} // foreground commands running now
	madeDirs     bool               // JobsDir exists
	lifeR, lifeW *os.File           // the supervisors' lifeline (supervise.go)

	exe      string         // this executable, when commands are supervised
	tracking sync.WaitGroup // Options.Track end calls still to come
}

//go:embed description.md
var description string

// New returns a Shell. Zero options take the package defaults.
func New(opts Options) *Shell {
	if opts.OutputLimit <= 0 {
		opts.OutputLimit = DefaultOutputLimit
	}
	if opts.KillGrace <= 0 {
		opts.KillGrace = DefaultKillGrace
	}
	if opts.LogLimit <= 0 {
		opts.LogLimit = DefaultLogLimit
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	path, name := findShell(opts.Workdir)
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
		jobsDir:   filepath.Join(opts.Workdir, ".godwit", "run"),
		shellPath: path,
		shellName: name,
		log:       log,
		jobs:      make(map[string]*job),
		fgProcs:   make(map[*proc]struct{}),
	}
	desc := strings.TrimSpace(strings.ReplaceAll(description, "{shell}", name))
	sch := schema(DefaultTimeout, DefaultMaxTimeout)
	if opts.NoJobs {
		desc, _, _ = strings.Cut(desc, " Use background:true")
		sch = foregroundSchema(DefaultTimeout, DefaultMaxTimeout)
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
	switch a.Action {
	case actRun, actList, actStatus, actLogs, actStop:
	default:
		return a, badArgs("Use action run, list, status, logs or stop.", "unknown action %q", a.Action)
	}
	if a.Action == actList && a.JobID != "" {
		return a, badArgs("Use action status to see one job.", "list takes no job_id")
	}
	// Each field, and the actions it is for.
	for _, f := range []struct {
		name, actions string
		set           bool
	}{
		{"command", "run (the default action)", a.Command != ""},
		{"timeout_s and background", "run", a.TimeoutS != nil || a.Background},
		{"job_id", "status, logs and stop", a.JobID != ""},
		{"lines", "status and logs", a.Lines != nil},
	} {
		if f.set && !strings.Contains(f.actions, a.Action) {
			return a, badArgs("Drop "+f.name+"; it is only for "+f.actions+".", "%s does not apply to action %q", f.name, a.Action)
		}
	}
	switch {
	case a.Action == actRun && strings.TrimSpace(a.Command) == "":
		return a, badArgs("Give the command to run in command.", "command is empty")
	case a.Action == actRun && a.TimeoutS != nil && a.Background:
		return a, badArgs("Drop timeout_s: a background job runs until stop or the end of the session.",
			"timeout_s does not apply to background jobs")
	case a.Action == actRun && a.TimeoutS != nil && (*a.TimeoutS <= 0 || *a.TimeoutS > DefaultMaxTimeout.Seconds()):
		return a, badArgs(fmt.Sprintf("Use 0 < timeout_s <= %s; for longer work use background:true.",
			seconds(DefaultMaxTimeout)), "timeout_s %v is out of range", *a.TimeoutS)
	case a.Action != actRun && a.Action != actList && a.JobID == "":
		return a, badArgs("Give job_id (see action list).", "%s needs job_id", a.Action)
	case a.Lines != nil && *a.Lines <= 0:
		return a, badArgs("Use a positive lines, or leave it out.", "lines must be positive, got %d", *a.Lines)
	}
	return a, nil
}

// Access implements tool.Accessor. A command can touch anything, so run
// is exclusive and mutating.
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
		timeout := DefaultTimeout
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
	s.mu.Unlock()
	jobs := s.jobList() // no job starts once closed
	for _, j := range jobs {
		procs = append(procs, j.proc)
	}
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(func() { p.stop(s.opts.KillGrace, s.log) })
	}
	wg.Wait()
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
	// No colour codes spent as tokens, no pager, no credential prompt.
	env := append(inherited(os.Environ(), s.opts.Secrets), "NO_COLOR=1", "TERM=dumb", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	cmd.Env = append(env, s.opts.Env...)
	setGroup(cmd)
	return cmd // Stdin nil: os/exec connects /dev/null
}

// inherited is godwit's environment without the providers' keys (any
// *_API_KEY, and secrets): `env` would otherwise show them to the model
// and the session record.
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

// wrap applies the sandbox for the call in ctx: ReadOnlyWrap when the
// approver confined it to reading, WriteWrap when a person allowed it to
// write in read-only mode, else Wrap.
func (s *Shell) wrap(ctx context.Context, cmd *exec.Cmd) error {
	wrap := s.opts.Wrap
	switch c := tool.ConfinementFrom(ctx); {
	case c == tool.ConfineReadOnly && s.opts.ReadOnlyWrap != nil:
		wrap = s.opts.ReadOnlyWrap
	case c == tool.ConfineWrite && s.opts.WriteWrap != nil:
		wrap = s.opts.WriteWrap
	}
	if wrap == nil {
		return nil
	}
	if err := wrap(cmd); err != nil {
		return tool.Errorf(tool.CodeDenied, "Do not retry; tell the user the sandbox refused the command.",
			"the command could not be sandboxed: %v", err)
	}
	return nil
}

// startLocked wraps, supervises and starts cmd; s.mu must be held, so
// that Close cannot miss a process. job is "" for a foreground command.
func (s *Shell) startLocked(ctx context.Context, cmd *exec.Cmd, line, job string) (*proc, error) {
	if err := s.wrap(ctx, cmd); err != nil {
		return nil, err
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
	p, err := startProc(cmd, status, statusW)
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

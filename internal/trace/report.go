package trace

import "fmt"

// Report is the summary of one session that Analyze computes. Its JSON
// form is `godwit inspect trace --analyze --json`.
type Report struct {
	Session string `json:"session"`
	Title   string `json:"title"`
	Model   string `json:"model"`

	Turns TurnCounts `json:"turns"`

	ModelCalls  int `json:"model_calls"`
	ModelErrors int `json:"model_errors"`
	Retries     int `json:"retries"`
	ToolCalls   int `json:"tool_calls"`
	// ToolErrors counts calls that failed; a call refused by approval
	// (ToolDenied) or stopped by the user (ToolCancelled) did not fail.
	ToolErrors    int `json:"tool_errors"`
	ToolDenied    int `json:"tool_denied,omitempty"`
	ToolCancelled int `json:"tool_cancelled,omitempty"`
	// ParallelSteps counts model responses that asked for two or more
	// tool calls; MaxParallel is the most calls one response asked for,
	// first at MaxParallelAt.
	ParallelSteps int      `json:"parallel_steps"`
	MaxParallel   int      `json:"max_parallel"`
	MaxParallelAt *StepRef `json:"max_parallel_at,omitempty"`

	Tokens Tokens `json:"tokens"`
	// TextChars counts the characters of the model's visible answers
	// (thinking excluded).
	TextChars int `json:"text_chars"`

	Tools []ToolCount `json:"tools"`

	// ReReads are reads of a file that show lines an earlier read showed,
	// with no write to the file between (by a file tool; a shell command
	// that changed the file is not seen).
	ReReads []FileRef `json:"re_reads"`
	// ReadsAfterWrite are the first reads of a file after the session
	// itself wrote it: the model reading back what it wrote.
	ReadsAfterWrite []FileRef `json:"reads_after_write"`

	// Nudges counts the end-of-turn checks that sent the model back, by
	// check (unverified_write, open_plan, announced_step, loop).
	Nudges map[string]int `json:"nudges,omitempty"`

	Shell  ShellStats  `json:"shell"`
	Tests  TestStats   `json:"tests"`
	Phases Phases      `json:"phases"`
	Verify VerifyStats `json:"verify"`
	Cost   CostStats   `json:"cost"`
}

// TurnCounts counts turns by how they ended.
type TurnCounts struct {
	Total       int `json:"total"`
	Done        int `json:"done"`
	Failed      int `json:"failed"`
	Cancelled   int `json:"cancelled"`
	Interrupted int `json:"interrupted"`
	Running     int `json:"running"`
}

// StepRef names one model call: turn number (1, 2, ...) and step within
// the turn. It prints as "t1s3".
type StepRef struct {
	Turn int `json:"turn"`
	Step int `json:"step"`
}

func (r StepRef) String() string { return fmt.Sprintf("t%ds%d", r.Turn, r.Step) }

// Tokens sums the usage of model calls. Input includes cached tokens.
type Tokens struct {
	Input      int64 `json:"input"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
	Output     int64 `json:"output"`
	Reasoning  int64 `json:"reasoning"`
}

// ToolCount is how often one tool was called, failed, was refused by
// approval or stopped by the user.
type ToolCount struct {
	Name      string `json:"name"`
	Calls     int    `json:"calls"`
	Errors    int    `json:"errors"`
	Denied    int    `json:"denied,omitempty"`
	Cancelled int    `json:"cancelled,omitempty"`
}

// FileRef is one notable read: where it happened and the earlier call it
// repeats (the first overlapping read, or the write it reads back).
type FileRef struct {
	Path  string  `json:"path"`
	At    StepRef `json:"at"`
	Since StepRef `json:"since"`
}

// ShellStats describes the shell_exec runs (job actions excluded).
type ShellStats struct {
	Runs int `json:"runs"`
	// Failed runs exited non-zero, timed out or were killed.
	Failed int `json:"failed"`
	// Denied runs were refused by approval and never ran; Cancelled ones
	// the user stopped. Neither counts as a run.
	Denied    int `json:"denied"`
	Cancelled int `json:"cancelled,omitempty"`
	// StderrOK are runs that exited 0 yet printed diagnostics. The shell
	// merges stdout and stderr, so these are found by their text: a line
	// such as "warning: ...", "x.go:3: error: ...", "ERROR ...",
	// "DeprecationWarning: ...", "npm WARN", a Python traceback,
	// "command not found" or "No such file or directory".
	StderrOK []Run `json:"stderr_ok"`
	// Repeated are commands run more than once, most runs first.
	Repeated []Repeated `json:"repeated"`
}

// Run is one shell run worth pointing at.
type Run struct {
	At      StepRef `json:"at"`
	Command string  `json:"command"`
	Exit    int     `json:"exit"` // -1 when it did not exit (killed, timed out)
	// Line is the output line that made it notable.
	Line string `json:"line,omitempty"`
}

// Repeated is a command and how often it ran.
type Repeated struct {
	Command string `json:"command"`
	Runs    int    `json:"runs"`
	Failed  int    `json:"failed"`
}

// TestStats describes the shell runs that ran tests (go test, pytest,
// npm test, cargo test, jest, vitest, ...: see isTestCommand).
type TestStats struct {
	Runs   int `json:"runs"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	// FirstPass is the step of the first passing run; AfterFirstPass
	// counts the test runs of later steps.
	FirstPass      *StepRef `json:"first_pass,omitempty"`
	AfterFirstPass int      `json:"after_first_pass"`
}

// Phases splits the model calls at the first write and at green (the
// first passing test run in a step after the first write's: a test run
// alongside the write may have run before it). Without a write every call
// is exploring; without green the rest are "to green".
type Phases struct {
	FirstWrite *StepRef `json:"first_write,omitempty"`
	Green      *StepRef `json:"green,omitempty"`
	Explore    Phase    `json:"explore"`
	ToGreen    Phase    `json:"to_green"`
	AfterGreen Phase    `json:"after_green"`
}

// Phase is what the model calls of one phase used.
type Phase struct {
	Calls  int     `json:"calls"`
	Input  int64   `json:"input_tokens"`
	Output int64   `json:"output_tokens"`
	Cost   float64 `json:"cost"`
}

// VerifyStats describes the --verify runs.
type VerifyStats struct {
	Runs   int `json:"runs"`
	Failed int `json:"failed"`
	// LastExit is the exit code of the last run, nil when none ran.
	LastExit *int `json:"last_exit,omitempty"`
}

// CostStats is what the session cost, from the prices recorded with each
// model call.
type CostStats struct {
	Total   float64     `json:"total"`
	ByModel []ModelCost `json:"by_model"`
	// Unpriced counts calls that used tokens but cost nothing: the
	// catalog had no price for their model.
	Unpriced int `json:"unpriced"`
}

// ModelCost is one model's share of the session.
type ModelCost struct {
	Model  string  `json:"model"` // provider/model
	Calls  int     `json:"calls"`
	Tokens Tokens  `json:"tokens"`
	Cost   float64 `json:"cost"`
}

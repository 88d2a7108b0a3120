package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/window"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

// Assembler builds each model request from the segment's history (the
// window package). Within a segment successive requests must extend each
// other byte for byte so that provider caches hit.
type Assembler interface {
	Assemble(ctx context.Context, in window.Input) (window.Assembly, error)
	// Budget is the partition requests are built to.
	Budget() window.Budget
	// Counter counts tokens as requests are counted; nil estimates.
	Counter() *window.Counter
}

// Config holds a Runtime's dependencies.
type Config struct {
	// Provider, Assembler, Runner and Store are required.
	Provider llm.Provider
	// ProviderName and Model label records and events ("anthropic",
	// "claude-sonnet-4-5"); Model is also sent in each request.
	ProviderName string
	Model        string
	Assembler    Assembler
	Runner       *tool.Runner
	Store        Store
	Workspace    string // absolute
	// MaxSteps bounds model calls per turn; 0 means DefaultMaxSteps.
	MaxSteps int
	// Reasoning is the effort hint passed to the provider.
	Reasoning string
	// Images says the model takes image input (the catalog's word);
	// without it a turn with an image fails before anything is sent.
	Images bool
	// Cost prices a call's usage; nil means free (unknown prices).
	Cost func(llm.Usage) float64
	// Verify runs --verify commands; required when a RunInput names one.
	Verify Verifier
	// OpenPlan lists the plan's open steps for the end-of-turn check; nil
	// skips that check.
	OpenPlan func() []string
	// SegmentNotes returns short notices for the next handoff (memory or
	// rules files that changed during the segment).
	SegmentNotes func(ctx context.Context) []string
	// About describes what sessions run with (version, mode, tools...)
	// for session.started; nil leaves it out.
	About func() SessionInfo
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives diagnostics; nil discards.
	Logger *slog.Logger
}

// Defaults.
const (
	DefaultMaxSteps = 60
	// MaxTurnResets is how often one turn may reset for lack of room
	// before it stops: the model keeps filling fresh segments.
	MaxTurnResets = 3
	// DefaultRepeatCap: the third identical failure (same tool and
	// arguments) gets a warning in its result; the fifth ends the turn.
	DefaultRepeatCap = 5
	repeatWarnAt     = 3
)

// Runtime runs turns. One Runtime serves one workspace and may run turns
// of several sessions at once; the caller serialises turns of a session.
type Runtime struct {
	cfg Config
	// counter is the assembler's token counter; nil estimates.
	counter *window.Counter

	mu        sync.Mutex
	kept      map[string]*session // by id, as their last turn left them
	keptOrder []string            // oldest first
}

// budget is the window's partition.
func (r *Runtime) budget() window.Budget { return r.cfg.Assembler.Budget() }

// New checks cfg and returns a Runtime.
func New(cfg Config) (*Runtime, error) {
	switch {
	case cfg.Provider == nil:
		return nil, errors.New("agent: Config.Provider is required")
	case cfg.Assembler == nil:
		return nil, errors.New("agent: Config.Assembler is required")
	case cfg.Runner == nil:
		return nil, errors.New("agent: Config.Runner is required")
	case cfg.Store == nil:
		return nil, errors.New("agent: Config.Store is required")
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.ProviderName = cmp.Or(cfg.ProviderName, cfg.Provider.Name())
	return &Runtime{cfg: cfg, counter: cfg.Assembler.Counter()}, nil
}

// RunInput is one user message.
type RunInput struct {
	// SessionID continues a stored session; empty starts a new one.
	SessionID string
	Prompt    string
	// Sink receives this run's events, and only those (see Sink); nil
	// discards them. The store records them either way.
	Sink Sink
	// Reset starts the turn in a new segment, with a handoff (`--reset`).
	Reset bool
	// Verify is a command that proves the turn's work (`--verify`): run
	// in the workspace after the model answers; on failure its output
	// goes back to the model, at most VerifyRounds times.
	Verify        string
	VerifyRounds  int
	VerifyTimeout time.Duration
	// NoChecks turns the end-of-turn checks off.
	NoChecks bool
	// Notes tell the model what changed outside the conversation since
	// its last turn; they go before the prompt, marked as godwit's.
	// Neither notes, Attach nor Mail enter the Decisions ledger.
	Notes []string
	// Attach are parts the user attached to the prompt (@path, --image),
	// sent after it. An image fails the turn unless Config.Images.
	Attach []llm.Part
	// Mail are messages claimed for this turn, sent after the prompt
	// marked with id and sender; each gets the turn's answer or error.
	// Prompt may be empty when Mail is not.
	Mail []store.Mail
}

// Result is a finished turn.
type Result struct {
	SessionID string
	Turn      int
	Status    store.TurnStatus
	// Text is the model's final answer; a bare reply to an end-of-turn
	// check ("ok") does not replace the answer the check followed.
	Text  string
	Steps int
	Usage llm.Usage
	Cost  float64
	// Verified is nil when no verify command was given, else whether its
	// last run passed.
	Verified *bool
}

// Turn status errors. Run returns one of these (wrapped) together with a
// Result whenever the turn did not end with an answer.
var (
	ErrStepLimit = errors.New("agent: step limit reached")
	ErrRepeated  = errors.New("agent: the same call kept failing")
	ErrCancelled = errors.New("agent: turn cancelled")
	// ErrVerifyFailed: the model answered, but the verify command still
	// failed after the last round.
	ErrVerifyFailed = errors.New("agent: the verify command still fails")
	// ErrTooBig: the request cannot fit even a fresh segment, or the
	// context reset twice without a completed step.
	ErrTooBig = errors.New("agent: the context cannot hold this turn")
)

// Run takes one user message through the turn loop. It returns the Result
// and, when the turn failed or was cancelled, an error saying why; the
// turn is recorded either way.
func (r *Runtime) Run(ctx context.Context, in RunInput) (Result, error) {
	if in.Prompt == "" && len(in.Mail) == 0 {
		return Result{}, errors.New("agent: empty prompt")
	}
	for _, p := range in.Attach {
		if p.Kind == llm.PartImage && !r.cfg.Images {
			return Result{}, fmt.Errorf("%s/%s does not take images: pick a model that does (e.g. anthropic/claude-sonnet-4-5 or openai/gpt-5) with --model or /model, or if it does, set images: true for it under models: in config.yaml", r.cfg.ProviderName, r.cfg.Model)
		}
	}
	if in.Verify != "" && r.cfg.Verify == nil {
		return Result{}, errors.New("agent: a verify command was given but no Verifier is configured")
	}
	sink := &runSink{sink: in.Sink}
	defer sink.end()
	s, err := r.open(ctx, in.SessionID, sink)
	if err != nil {
		return Result{}, err
	}
	res, err := s.turn(ctx, in)
	r.keep(s)
	return res, err
}

// errorText renders err for a record, keeping a hint the chain carries
// (what to change in the configuration): the chat shows this text.
func errorText(err error) string {
	var le *llm.Error
	if errors.As(err, &le) {
		text := strings.TrimPrefix(le.Error(), "llm: ")
		var h interface{ Hint() string }
		if errors.As(err, &h) && h.Hint() != "" {
			text += "; " + h.Hint()
		}
		if errors.Is(err, llm.ErrRetryable) {
			text += "; " + retryAdvice
		}
		return text
	}
	return err.Error()
}

func (r *Runtime) cost(u llm.Usage) float64 {
	if r.cfg.Cost == nil {
		return 0
	}
	return r.cfg.Cost(u)
}

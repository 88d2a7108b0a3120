package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"iter"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/config"
	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

// newRealModel builds the provider --model names from the user's
// configuration, so a real-model eval uses the same providers, keys and
// fallbacks as a session. It is built once and shared by the runs
// (providers are safe for concurrent use); the engine of each run is
// built around it, in a home of its own.
func newRealModel(opts Options) (*wiring.ProviderModel, error) {
	cfg, err := config.Load(opts.Home, opts.Getenv)
	if err != nil {
		return nil, err
	}
	cat, err := cfg.Catalog()
	if err != nil {
		return nil, err
	}
	pm, err := wiring.NewProvider(cfg, cat, opts.Model, opts.Getenv, opts.Logger)
	if err != nil {
		return nil, err
	}
	if pm.Warning != "" {
		opts.Logger.Warn(pm.Warning)
	}
	return &pm, nil
}

// recorder wraps a provider and keeps the first and the last request it
// was sent: the first fingerprints the prompt and tools, the last is what
// request checks look at.
type recorder struct {
	llm.Provider

	mu          sync.Mutex
	first, last *llm.Request
}

func (r *recorder) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	c := fake.CloneRequest(req)
	r.mu.Lock()
	if r.first == nil {
		r.first = &c
	}
	r.last = &c
	r.mu.Unlock()
	return r.Provider.Stream(ctx, req)
}

func (r *recorder) requests() (first, last *llm.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first, r.last
}

// hashes fingerprint a request's system prompt, with the run's own
// workspace paths replaced so that runs compare, and its tool table.
func hashes(req *llm.Request, workspaces ...string) (system, tools string) {
	if req == nil {
		return "", ""
	}
	s := req.System
	for _, w := range workspaces {
		if w != "" {
			s = strings.ReplaceAll(s, w, "<workspace>")
		}
	}
	tb, _ := json.Marshal(req.Tools)
	return short(s), short(string(tb))
}

func short(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:6])
}

package window

import (
	"hash/fnv"
	"log/slog"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Counter counts o200k tokens. Loading the BPE tables takes ~200 ms of CPU
// and ~12 MiB, so nothing loads them until Warm (in the background) or
// Count (waiting) asks; until then Estimate stands in. The agent warms the
// counter once a turn goes past its first answer, so a one-shot question
// never pays for it and a working session loads it while tools run. Counts are cached by content
// hash: a history is counted once, message by message, not per request.
//
// It also keeps the calibration ratio between what the provider reported
// and what o200k counted (vendors' tokenizers differ by 10-20%), used to
// judge budgets in the provider's own tokens.
type Counter struct {
	ready chan struct{}
	once  sync.Once
	log   *slog.Logger
	enc   tokenizer.Codec // set before ready is closed

	mu    sync.Mutex // guards cache and ratio
	cache map[uint64]int
	ratio float64
}

// NewCounter returns a counter; the tokenizer loads on first need.
func NewCounter(log *slog.Logger) *Counter {
	return &Counter{ready: make(chan struct{}), log: log, cache: map[uint64]int{}, ratio: 1}
}

// Warm starts loading the tokenizer in the background, once.
func (c *Counter) Warm() {
	c.once.Do(func() {
		go func() {
			defer close(c.ready)
			enc, err := tokenizer.Get(tokenizer.O200kBase)
			if err != nil {
				if c.log != nil {
					c.log.Warn("window: o200k tokenizer unavailable; estimating 4 bytes a token", "err", err)
				}
				return
			}
			c.enc = enc
		}()
	})
}

// Ready reports whether exact counts are available without waiting.
func (c *Counter) Ready() bool {
	select {
	case <-c.ready:
		return c.enc != nil
	default:
		return false
	}
}

// Estimate is the cheap stand-in: 4 bytes a token.
func Estimate(s string) int { return (len(s) + 3) / 4 }

// Count returns the o200k count of s, waiting for the tokenizer if it is
// still loading.
func (c *Counter) Count(s string) int {
	if s == "" {
		return 0
	}
	c.Warm()
	<-c.ready
	if c.enc == nil {
		return Estimate(s)
	}
	h := fnv.New64a()
	h.Write([]byte(s))
	key := h.Sum64() ^ uint64(len(s))
	c.mu.Lock()
	n, ok := c.cache[key]
	c.mu.Unlock()
	if ok {
		return n
	}
	n, err := c.enc.Count(s)
	if err != nil {
		n = Estimate(s)
	}
	c.mu.Lock()
	if len(c.cache) > 1<<16 { // a day's worth of distinct texts; start over
		c.cache = map[uint64]int{}
	}
	c.cache[key] = n
	c.mu.Unlock()
	return n
}

// Calibrate folds one observation into the ratio: the provider reported
// reported input tokens for a request counted as counted.
func (c *Counter) Calibrate(counted, reported int64) {
	if counted <= 0 || reported <= 0 {
		return
	}
	r := float64(reported) / float64(counted)
	if r < 0.5 || r > 2 { // a cached or odd report; ignore
		return
	}
	c.mu.Lock()
	c.ratio = 0.7*c.ratio + 0.3*r
	c.mu.Unlock()
}

// Ratio is the calibration ratio (provider tokens per o200k token).
func (c *Counter) Ratio() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ratio
}

package window

import (
	"hash/maphash"
	"sync"

	"github.com/godwit/godwit/internal/o200k"
)

// Counter counts o200k tokens (internal/o200k) and remembers, in this
// process, the count of each text it has counted, so a resident process
// counts each piece of its history once rather than once a request.
// Nothing is kept across processes: a resumed session counts its history
// again, under 1% of a per-turn process's instructions at turn 301
// (docs/architecture.md, Context).
//
// It also keeps the calibration ratio between what the provider reported
// and what o200k counted (vendors' tokenizers differ by 10-20%), used to
// judge budgets in the provider's own tokens.
type Counter struct {
	seed maphash.Seed

	mu    sync.Mutex // guards cache and ratio
	cache map[uint64]int
	ratio float64
}

// NewCounter returns a counter.
func NewCounter() *Counter {
	return &Counter{seed: maphash.MakeSeed(), cache: map[uint64]int{}, ratio: 1}
}

// Estimate is the stand-in without a counter: 4 bytes a token.
func Estimate(s string) int { return (len(s) + 3) / 4 }

// Count returns the o200k count of s; a nil Counter estimates.
func (c *Counter) Count(s string) int {
	if c == nil {
		return Estimate(s)
	}
	if s == "" {
		return 0
	}
	key := maphash.String(c.seed, s)
	c.mu.Lock()
	n, ok := c.cache[key]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = o200k.Count(s)
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
	if c == nil || counted <= 0 || reported <= 0 {
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

// Ratio is the calibration ratio (provider tokens per o200k token), 1
// for a nil Counter.
func (c *Counter) Ratio() float64 {
	if c == nil {
		return 1
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ratio
}

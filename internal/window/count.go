package window

import (
	"context"
	"log/slog"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/godwit/godwit/internal/o200k"
)

// Tokenizer names the counts a Counter makes, for CountStore.
const Tokenizer = "o200k_base"

// Counter counts o200k tokens (internal/o200k). Until Warm (in the
// background) or a count that needs it asks, a request no decision
// depends on the exact size of is measured with known counts and an
// estimate for the rest (see Window.account).
//
// Counts are cached by content hash: a history is counted once, piece by
// piece, not per request. With a CountStore they are kept across
// processes too, so a resumed session counts only what is new.
//
// It also keeps the calibration ratio between what the provider reported
// and what o200k counted (vendors' tokenizers differ by 10-20%), used to
// judge budgets in the provider's own tokens.
type Counter struct {
	ready chan struct{}
	once  sync.Once
	log   *slog.Logger
	store CountStore
	// warmed: the tokenizer was asked for.
	warmed atomic.Bool

	mu      sync.Mutex // guards cache, pending, asked and ratio
	cache   map[uint64]int
	pending map[uint64]int  // counted here, not yet in the store
	asked   map[uint64]bool // looked up in the store and not found
	ratio   float64
}

// CountStore keeps token counts by tokenizer and text hash (HashText),
// across processes.
type CountStore interface {
	// TokenCounts returns the counts it holds of the given hashes.
	TokenCounts(ctx context.Context, tokenizer string, hashes []uint64) (map[uint64]int, error)
	// PutTokenCounts keeps counts.
	PutTokenCounts(ctx context.Context, tokenizer string, counts map[uint64]int) error
}

// NewCounter returns a counter; the tokenizer loads on first need.
func NewCounter(log *slog.Logger) *Counter { return NewStoredCounter(log, nil) }

// NewStoredCounter is NewCounter with counts kept in store (nil: in
// memory only).
func NewStoredCounter(log *slog.Logger, store CountStore) *Counter {
	return &Counter{ready: make(chan struct{}), log: log, store: store, cache: map[uint64]int{}, pending: map[uint64]int{}, asked: map[uint64]bool{}, ratio: 1}
}

// Warm starts loading the tokenizer in the background, once.
func (c *Counter) Warm() {
	c.once.Do(func() {
		c.warmed.Store(true)
		go func() {
			defer close(c.ready)
			o200k.Load()
		}()
	})
}

// Ready reports whether exact counts are available without waiting.
func (c *Counter) Ready() bool {
	select {
	case <-c.ready:
		return true
	default:
		return false
	}
}

// Loaded reports whether the tokenizer was asked for (Warm or a count
// that needed it): what a process that counted nothing new never does.
func (c *Counter) Loaded() bool { return c.warmed.Load() }

// Estimate is the cheap stand-in: 4 bytes a token.
func Estimate(s string) int { return (len(s) + 3) / 4 }

// HashText is the key counts are kept by: a 64-bit hash of the text and
// its length, eight bytes a step (a request's pieces are hashed on every
// request, so FNV's byte a step cost a resident process a tenth of its
// time).
func HashText(s string) uint64 {
	const p1, p2, p3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
	h := uint64(len(s)) * p3
	for len(s) >= 8 {
		v := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h ^= bits.RotateLeft64(v*p2, 31) * p1
		h = bits.RotateLeft64(h, 27)*p1 + p3
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i]) * p3
		h = bits.RotateLeft64(h, 11) * p1
	}
	h ^= h >> 33
	h *= p2
	h ^= h >> 29
	h *= p3
	return h ^ h>>32
}

// Count returns the o200k count of s, waiting for the tokenizer if it is
// still loading.
func (c *Counter) Count(s string) int {
	if s == "" {
		return 0
	}
	key := HashText(s)
	c.mu.Lock()
	n, ok := c.cache[key]
	c.mu.Unlock()
	if ok {
		return n
	}
	return c.count(s, key)
}

func (c *Counter) count(s string, key uint64) int {
	c.Warm()
	<-c.ready
	n := o200k.Count(s)
	c.mu.Lock()
	if len(c.cache) > 1<<16 { // a day's worth of distinct texts; start over
		c.cache, c.asked = map[uint64]int{}, map[uint64]bool{}
	}
	c.cache[key] = n
	if c.store != nil {
		c.pending[key] = n
	}
	c.mu.Unlock()
	return n
}

// known returns the counts of texts it has without counting: from the
// cache or, in one lookup, the store; -1 for the others. keys are the
// texts' hashes.
func (c *Counter) known(ctx context.Context, texts []string) (counts []int, keys []uint64) {
	counts = make([]int, len(texts))
	keys = make([]uint64, len(texts))
	var ask []uint64
	c.mu.Lock()
	for i, t := range texts {
		if t == "" {
			continue
		}
		keys[i] = HashText(t)
		n, ok := c.cache[keys[i]]
		switch {
		case ok:
			counts[i] = n
		default:
			counts[i] = -1
			if c.store != nil && !c.asked[keys[i]] {
				ask = append(ask, keys[i])
				c.asked[keys[i]] = true
			}
		}
	}
	c.mu.Unlock()
	if len(ask) == 0 {
		return counts, keys
	}
	found, err := c.store.TokenCounts(ctx, Tokenizer, ask)
	if err != nil {
		if c.log != nil {
			c.log.Warn("window: reading kept token counts", "err", err)
		}
		return counts, keys
	}
	c.mu.Lock()
	for k, n := range found {
		c.cache[k] = n
	}
	c.mu.Unlock()
	for i, k := range keys {
		if n, ok := found[k]; ok && counts[i] < 0 {
			counts[i] = n
		}
	}
	return counts, keys
}

// Flush keeps the counts made since the last Flush in the store.
func (c *Counter) Flush(ctx context.Context) error {
	if c.store == nil {
		return nil
	}
	c.mu.Lock()
	p := c.pending
	if len(p) == 0 {
		c.mu.Unlock()
		return nil
	}
	c.pending = map[uint64]int{}
	c.mu.Unlock()
	return c.store.PutTokenCounts(ctx, Tokenizer, p)
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

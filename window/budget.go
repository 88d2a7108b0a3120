package window

// Budget is the window's partition, in tokens, with hard caps like
// cgroups. Its defaults scale the ones for a 128k window: system 8k, tool
// outputs 40k, messages 40k, scratchpad 20k, reserved 20k.
type Budget struct {
	Window      int
	System      int // system prompt, rules, memory, tool table, handoff (soft: it is pinned)
	ToolOutputs int
	Messages    int
	Scratchpad  int // the model's thinking
	Reserved    int // the answer
	// FreeShare is the least share of Window one compaction frees, in
	// percent: a compaction breaks the cached prefix once, so it must be
	// worth it.
	FreeShare int
}

// DefaultFreeShare is the default least share a compaction frees.
const DefaultFreeShare = 20

// Scaled returns the default partition for a window of n tokens.
func Scaled(n int) Budget {
	if n <= 0 {
		n = 128_000
	}
	part := func(k int) int { return n * k / 128 }
	return Budget{
		Window: n, System: part(8), ToolOutputs: part(40), Messages: part(40),
		Scratchpad: part(20), Reserved: part(20), FreeShare: DefaultFreeShare,
	}
}

// Input is the most a request may hold: the window less what the answer
// and the thinking need. A segment resets when its next request would
// pass it.
func (b Budget) Input() int { return b.Window - b.Scratchpad - b.Reserved }

// freeTarget is how much one compaction step frees at least.
func (b Budget) freeTarget(over int) int {
	t := b.Window * b.FreeShare / 100
	if over > t {
		return over
	}
	return t
}

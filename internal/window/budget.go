package window

// Budget is the window's partition, in tokens. Its parts are ceilings,
// not per-turn triggers: what a request may hold (Input, Limit), when
// the window forces paging (High) and where that stops (Low), the most
// one tool output may take (OutputShare) and the Decisions ledger's share
// (Ledger). Scaled derives them all from the window. WorkingSet is the
// one part that is not a share of the window: how much answered output
// of earlier turns stays in view, whatever the window, since keeping it
// is what costs.
type Budget struct {
	Window     int
	Scratchpad int // the model's thinking
	Reserved   int // the answer
	// OutputShare is the most one tool output may take in view; a larger
	// one is paged whole and shown as its head and tail.
	OutputShare int
	// Ledger is the Decisions ledger's budget in a handoff. Every
	// message's words stay while it has room; past it requests shrink
	// first and standing instructions last, and those with a standing
	// marker never (the user is told).
	Ledger int
	// HighPct and LowPct place the forced paging marks, in percent of
	// Limit: above High a compaction step pages down to Low at once.
	HighPct, LowPct int
	// WorkingSet is the most tool output of earlier turns, answered
	// from, that stays whole in view, in tokens; past it, such outputs
	// are paged in one batch at the next break that costs less than
	// keeping them (see choose). 0 pages them at the next turn's second
	// request. The turn in progress keeps what it works with either way.
	WorkingSet int
}

// DefaultWorkingSet is the working set the config and flag leave: the
// one that cost least on the realistic day and the re-use day of
// bench/longsession (see docs/architecture.md, "Cost follows the work").
const DefaultWorkingSet = 0

// Scaled returns the default partition for a window of n tokens: for 128k,
// scratchpad 20k and reserved 20k (so a request holds at most 88k); one
// output at most 15% of the window (1k to 25k tokens, Claude Code's
// file read limit); the ledger 8% (800 to 16k).
func Scaled(n int) Budget {
	if n <= 0 {
		n = 128_000
	}
	part := func(k int) int { return n * k / 128 }
	return Budget{
		Window: n, Scratchpad: part(20), Reserved: part(20),
		OutputShare: clamp(n*15/100, 1000, 25_000),
		Ledger:      clamp(n*8/100, 800, 16_000),
		HighPct:     85, LowPct: 50, WorkingSet: DefaultWorkingSet,
	}
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }

// Input is the most any request may hold: the window less what the
// answer and the thinking need. Nothing is ever sent past it.
func (b Budget) Input() int { return b.Window - b.Scratchpad - b.Reserved }

// HandoffRoom is what the handoff instruction needs on top of a
// segment's history: its text and the ledger.
func (b Budget) HandoffRoom() int { return b.Ledger + 600 }

// Limit is the most a request of a turn may hold, so that the handoff
// call (the history plus its instruction) still fits Input. A segment
// resets when compaction cannot bring a request under it.
func (b Budget) Limit() int { return max(b.Input()-b.HandoffRoom(), b.Input()/2) }

// High is the mark above which the window forces a compaction step
// down to Low: a ceiling, which the working set keeps requests far below.
func (b Budget) High() int { return b.Limit() * b.HighPct / 100 }

// Low is where a forced compaction step stops.
func (b Budget) Low() int { return b.Limit() * b.LowPct / 100 }

// StepShare is what the outputs of one step (parallel calls) may take
// together: two outputs' shares, and never more than the low-water mark.
func (b Budget) StepShare() int { return min(2*b.OutputShare, max(b.Low(), b.OutputShare)) }

// OutputBytes is OutputShare in bytes, for tools that cap their own
// output (file_read, recall): 3 bytes a token. o200k reads Go at about
// 2.9 bytes a token and prose at 4, so a read cut here mostly fits the
// share; one that does not is capped again by the window, with the line
// to read on from.
func (b Budget) OutputBytes() int { return b.OutputShare * 3 }

package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// drawnGuard tells a key typed after a question was on the screen from
// one typed before it (on a loaded machine, a y typed while the model
// worked may be read after the question arrived): only the first may
// answer, and only out of a run of keys (answerDelay).
//
// The chat asks the terminal for its cursor position (a probe), whose
// report comes after whatever was typed before the terminal processed it.
// A probe sent with the question's frame may reach the terminal ahead of
// it, so a second is sent when the first is answered: keys read before
// its report were typed ahead and go to the input. A terminal that has
// not answered its first probe within probeLost is taken to answer none:
// there time alone decides.
type drawnGuard struct {
	answers bool      // the terminal has answered a probe
	out     int       // probes sent and not yet answered
	skip    int       // replies due to probes sent before the current question was drawn
	stage   int       // 0: no question, 1 and 2: that probe is out, 3: armed
	q       *entry    // the question the stages are for
	first   time.Time // when the first probe went out
	sentAt  time.Time // of the last probe
}

// probeLost is how long a probe may go unanswered before the guard takes
// it as lost and probes again (a y pressed meanwhile waits for it).
const probeLost = 2 * time.Second

func (g *drawnGuard) probe(now time.Time) tea.Cmd {
	g.out++
	g.sentAt = now
	if g.first.IsZero() {
		g.first = now
	}
	return tea.RequestCursorPosition
}

// question starts the stages for q, the question now current (nil: none).
func (g *drawnGuard) question(q *entry, now time.Time) tea.Cmd {
	if q == g.q {
		return nil
	}
	g.q = q
	if q == nil {
		g.stage = 0
		return nil
	}
	g.stage, g.skip = 1, g.out
	return g.probe(now)
}

// reply takes a cursor report.
func (g *drawnGuard) reply(now time.Time) tea.Cmd {
	g.answers = true
	g.out = max(g.out-1, 0)
	if g.skip > 0 {
		g.skip--
		return nil
	}
	switch g.stage {
	case 1:
		g.stage = 2
		return g.probe(now)
	case 2:
		g.stage = 3
	}
	return nil
}

// armed reports whether the current question has been on the screen for
// the terminal (keys read now were typed after it was drawn), or the
// terminal answers no probes (the rule of time holds instead).
func (g *drawnGuard) armed(now time.Time) bool { return g.stage == 3 || g.mute(now) }

// mute reports whether the terminal is taken to answer no probes.
func (g *drawnGuard) mute(now time.Time) bool {
	return !g.answers && (g.first.IsZero() || now.Sub(g.first) >= probeLost)
}

// retry probes again when the question waits for a report that is not
// coming (a probe lost): every report owed is written off.
func (g *drawnGuard) retry(now time.Time) tea.Cmd {
	if g.stage == 3 || g.mute(now) || now.Sub(g.sentAt) < probeLost {
		return nil
	}
	g.stage, g.out, g.skip = 1, 0, 0
	return g.probe(now)
}

package trace

import (
	"cmp"
	"slices"
	"unicode/utf8"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
)

// Analyze sums up t. It reads only t and is deterministic.
func Analyze(t *Trace) Report {
	r := Report{Session: t.Session.ID, Title: t.Session.Title, Model: t.Session.Model}
	a := analysis{t: t, seq: turnSeqs(t.Turns)}
	countTurns(&r, t.Turns)
	a.modelCalls(&r)
	a.toolCalls(&r)
	a.phases(&r)
	for _, e := range t.Events {
		switch {
		case e.Type == agent.EventModelResponse && e.Response != nil:
			r.TextChars += utf8.RuneCountInString(e.Response.Text)
		case e.Type == agent.EventNudge && e.Nudge != nil:
			if r.Nudges == nil {
				r.Nudges = map[string]int{}
			}
			r.Nudges[e.Nudge.Check]++
		}
	}
	for _, v := range t.VerifyRuns {
		r.Verify.Runs++
		if v.ExitCode != 0 {
			r.Verify.Failed++
		}
		code := v.ExitCode
		r.Verify.LastExit = &code
	}
	return r
}

type analysis struct {
	t   *Trace
	seq map[int64]int // store turn id -> turn number
	// firstWrite and green index t.ToolCalls; -1 for none.
	firstWrite, green int
}

func turnSeqs(turns []store.Turn) map[int64]int {
	m := make(map[int64]int, len(turns))
	for _, tr := range turns {
		m[tr.ID] = tr.Seq
	}
	return m
}

// laterStep reports whether tool call i is in a later step than call j.
func (a *analysis) laterStep(i, j int) bool {
	x, y := a.t.ToolCalls[i], a.t.ToolCalls[j]
	return x.TurnID > y.TurnID || (x.TurnID == y.TurnID && x.Step > y.Step)
}

func (a *analysis) ref(turnID int64, step int) StepRef {
	return StepRef{Turn: a.seq[turnID], Step: step}
}

func countTurns(r *Report, turns []store.Turn) {
	for _, tr := range turns {
		r.Turns.Total++
		switch tr.Status {
		case store.TurnDone:
			r.Turns.Done++
		case store.TurnFailed:
			r.Turns.Failed++
		case store.TurnCancelled:
			r.Turns.Cancelled++
		case store.TurnInterrupted:
			r.Turns.Interrupted++
		case store.TurnRunning:
			r.Turns.Running++
		}
	}
}

func (a *analysis) modelCalls(r *Report) {
	byModel := map[string]*ModelCost{}
	for _, mc := range a.t.ModelCalls {
		r.ModelCalls++
		if mc.Error != "" {
			r.ModelErrors++
		}
		r.Retries += mc.Retries
		addUsage(&r.Tokens, mc)
		r.Cost.Total += mc.Cost
		if mc.Cost == 0 && mc.Usage.InputTokens+mc.Usage.OutputTokens > 0 {
			r.Cost.Unpriced++
		}
		label := mc.Model
		if mc.Provider != "" {
			label = mc.Provider + "/" + mc.Model
		}
		m := entry(byModel, label, func() *ModelCost { return &ModelCost{Model: label} })
		m.Calls++
		m.Cost += mc.Cost
		addUsage(&m.Tokens, mc)
	}
	for _, m := range byModel {
		r.Cost.ByModel = append(r.Cost.ByModel, *m)
	}
	slices.SortFunc(r.Cost.ByModel, func(x, y ModelCost) int {
		return cmp.Or(cmp.Compare(y.Cost, x.Cost), cmp.Compare(y.Calls, x.Calls), cmp.Compare(x.Model, y.Model))
	})
}

func addUsage(t *Tokens, mc store.ModelCall) {
	u := mc.Usage
	t.Input += u.InputTokens
	t.CacheRead += u.CacheReadTokens
	t.CacheWrite += u.CacheWriteTokens
	t.Output += u.OutputTokens
	t.Reasoning += u.ReasoningTokens
}

// fileState is what the analysis knows of one file.
type fileState struct {
	reads   []fileRead // since the last write
	readAt  []StepRef  // parallel to reads
	written *StepRef   // the last write, until the next read
}

func (a *analysis) toolCalls(r *Report) {
	ws := a.t.Session.Workspace
	a.firstWrite, a.green = -1, -1
	tools := map[string]*ToolCount{}
	files := map[string]*fileState{}
	type cmdStat struct {
		first        StepRef
		runs, failed int
	}
	cmds := map[string]*cmdStat{}
	var stepKey StepRef
	stepCalls := 0
	for i, c := range a.t.ToolCalls {
		at := a.ref(c.TurnID, c.Step)
		r.ToolCalls++
		tc := entry(tools, c.Name, func() *ToolCount { return &ToolCount{Name: c.Name} })
		tc.Calls++
		switch {
		case c.IsError && c.Code == codeDenied:
			r.ToolDenied++
			tc.Denied++
		case c.IsError && c.Code == codeCancelled:
			r.ToolCancelled++
			tc.Cancelled++
		case c.IsError:
			r.ToolErrors++
			tc.Errors++
		}
		if i == 0 || at != stepKey {
			stepKey, stepCalls = at, 0
		}
		stepCalls++
		if stepCalls == 2 {
			r.ParallelSteps++
		}
		if stepCalls > r.MaxParallel {
			r.MaxParallel = stepCalls
			ref := at
			r.MaxParallelAt = &ref
		}

		if rd, ok := readOf(c, ws); ok {
			f := entry(files, rd.path, func() *fileState { return &fileState{} })
			for j, prev := range f.reads {
				if prev.overlaps(rd) {
					r.ReReads = append(r.ReReads, FileRef{Path: rd.path, At: at, Since: f.readAt[j]})
					break
				}
			}
			if f.written != nil {
				r.ReadsAfterWrite = append(r.ReadsAfterWrite, FileRef{Path: rd.path, At: at, Since: *f.written})
				f.written = nil
			}
			f.reads = append(f.reads, rd)
			f.readAt = append(f.readAt, at)
		}
		for _, p := range writesOf(c, ws) {
			f := entry(files, p, func() *fileState { return &fileState{} })
			w := at
			f.reads, f.readAt, f.written = nil, nil, &w
			if a.firstWrite < 0 {
				a.firstWrite = i
			}
		}

		cmd, ok := commandOf(c)
		if !ok {
			continue
		}
		if c.IsError && c.Code == codeDenied {
			r.Shell.Denied++
			continue
		}
		if c.IsError && c.Code == codeCancelled {
			r.Shell.Cancelled++
			continue
		}
		r.Shell.Runs++
		exit := exitCode(c)
		failed := exit != 0 || c.IsError
		cs := entry(cmds, cmd, func() *cmdStat { return &cmdStat{first: at} })
		cs.runs++
		if failed {
			r.Shell.Failed++
			cs.failed++
		} else if line := diagnosticOutput(c.Output); line != "" {
			r.Shell.StderrOK = append(r.Shell.StderrOK, Run{At: at, Command: cmd, Exit: exit, Line: clip(line, 120)})
		}
		if !isTestCommand(cmd) {
			continue
		}
		r.Tests.Runs++
		if failed {
			r.Tests.Failed++
		} else {
			r.Tests.Passed++
		}
		// Calls of one step run at once, in no set order: "after" means
		// in a later step.
		if r.Tests.FirstPass != nil && *r.Tests.FirstPass != at {
			r.Tests.AfterFirstPass++
		} else if !failed && r.Tests.FirstPass == nil {
			ref := at
			r.Tests.FirstPass = &ref
		}
		if !failed && a.green < 0 && a.firstWrite >= 0 && a.laterStep(i, a.firstWrite) {
			a.green = i
		}
	}
	// Calls of one step ran at once: order what they found by step and
	// name, not by the order they happen to be listed in.
	byRef := func(x, y FileRef) int {
		return cmp.Or(cmp.Compare(x.At.Turn, y.At.Turn), cmp.Compare(x.At.Step, y.At.Step), cmp.Compare(x.Path, y.Path))
	}
	slices.SortStableFunc(r.ReReads, byRef)
	slices.SortStableFunc(r.ReadsAfterWrite, byRef)
	slices.SortStableFunc(r.Shell.StderrOK, func(x, y Run) int {
		return cmp.Or(cmp.Compare(x.At.Turn, y.At.Turn), cmp.Compare(x.At.Step, y.At.Step), cmp.Compare(x.Command, y.Command))
	})
	for _, tc := range tools {
		r.Tools = append(r.Tools, *tc)
	}
	slices.SortFunc(r.Tools, func(x, y ToolCount) int {
		return cmp.Or(cmp.Compare(y.Calls, x.Calls), cmp.Compare(x.Name, y.Name))
	})
	type rep struct {
		Repeated
		first StepRef
	}
	var reps []rep
	for cmd, cs := range cmds {
		if cs.runs > 1 {
			reps = append(reps, rep{Repeated{Command: clip(cmd, 120), Runs: cs.runs, Failed: cs.failed}, cs.first})
		}
	}
	slices.SortFunc(reps, func(x, y rep) int {
		return cmp.Or(cmp.Compare(y.Runs, x.Runs), cmp.Compare(x.first.Turn, y.first.Turn),
			cmp.Compare(x.first.Step, y.first.Step), cmp.Compare(x.Command, y.Command))
	})
	for _, x := range reps {
		r.Shell.Repeated = append(r.Shell.Repeated, x.Repeated)
	}
}

// phases assigns each model call to a phase by its place relative to the
// calls that asked for the first write and for green.
func (a *analysis) phases(r *Report) {
	less := func(x, y stepKey) int { return cmp.Or(cmp.Compare(x.turn, y.turn), cmp.Compare(x.step, y.step)) }
	var write, green *stepKey
	if a.firstWrite >= 0 {
		c := a.t.ToolCalls[a.firstWrite]
		write = &stepKey{c.TurnID, c.Step}
		ref := a.ref(c.TurnID, c.Step)
		r.Phases.FirstWrite = &ref
	}
	if a.green >= 0 {
		c := a.t.ToolCalls[a.green]
		green = &stepKey{c.TurnID, c.Step}
		ref := a.ref(c.TurnID, c.Step)
		r.Phases.Green = &ref
	}
	for _, mc := range a.t.ModelCalls {
		k := stepKey{mc.TurnID, mc.Step}
		p := &r.Phases.Explore
		switch {
		case write == nil || less(k, *write) < 0:
		case green == nil || less(k, *green) <= 0:
			p = &r.Phases.ToGreen
		default:
			p = &r.Phases.AfterGreen
		}
		p.Calls++
		p.Input += mc.Usage.InputTokens
		p.Output += mc.Usage.OutputTokens
		p.Cost += mc.Cost
	}
}

// entry returns m[k], made by mk when missing.
func entry[K comparable, V any](m map[K]*V, k K, mk func() *V) *V {
	v := m[k]
	if v == nil {
		v = mk()
		m[k] = v
	}
	return v
}

// clip shortens s to n bytes (on a rune boundary), marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

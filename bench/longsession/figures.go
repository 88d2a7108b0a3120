package main

import (
	"fmt"
	"slices"
	"strings"
)

// Causes of a break in the cached prefix.
const (
	causeReset      = "reset"         // the request opens a new segment
	causeCompaction = "compaction"    // a compaction step just before it
	causeHandoff    = "handoff"       // a handoff call that does not extend the segment
	causeTurn       = "turn boundary" // the first request of a process, none of the above
	causeOther      = "other"
)

var causes = []string{causeTurn, causeReset, causeCompaction, causeHandoff, causeOther}

// reqInfo is what godwit's events say about one request.
type reqInfo struct {
	known     bool // an event was aligned with it
	segment   int
	purpose   string
	tokens    int // godwit's own count, 0 when it estimated
	compacted bool
	reset     bool // a segment.reset event came since the previous request
	first     bool // the first request of its process
}

// alignEvents pairs each process's model.request events, in order, with
// the requests the endpoint captured from that process. It returns the
// info per captured request and the processes whose counts differ.
func alignEvents(reqs []captured, turns []turnRun) ([]reqInfo, []string) {
	infos := make([]reqInfo, len(reqs))
	byProc := map[int][]int{}
	for i, c := range reqs {
		byProc[c.proc] = append(byProc[c.proc], i)
	}
	var problems []string
	for p, tr := range turns {
		idx := byProc[p]
		var evs []reqInfo
		compacted, reset := false, false
		for _, ev := range tr.events {
			switch ev.Type {
			case "context.compacted":
				compacted = true
			case "segment.reset":
				reset = true
			case "model.request":
				if ev.Request == nil {
					continue
				}
				ri := reqInfo{known: true, segment: ev.Request.Segment, purpose: ev.Request.Purpose,
					tokens: ev.Request.Tokens, compacted: compacted, reset: reset}
				if ev.Request.Estimated {
					ri.tokens = 0
				}
				evs = append(evs, ri)
				compacted, reset = false, false
			}
		}
		if len(evs) != len(idx) {
			problems = append(problems, fmt.Sprintf("turn %d: %d model.request events, %d requests received", tr.Turn, len(evs), len(idx)))
		}
		for k, i := range idx {
			if k < len(evs) {
				infos[i] = evs[k]
			}
			infos[i].first = k == 0
		}
	}
	return infos, problems
}

// cause says why request i does not extend request i-1.
func cause(infos []reqInfo, i int) string {
	cur, prev := infos[i], infos[i-1]
	switch {
	case cur.known && prev.known && cur.segment != prev.segment, cur.reset:
		return causeReset
	case cur.compacted:
		return causeCompaction
	case cur.first: // a handoff call opening a process breaks for the same reason
		return causeTurn
	case cur.purpose == "handoff":
		return causeHandoff
	}
	return causeOther
}

// brk is one break of the cached prefix.
type brk struct {
	Request int    `json:"request"` // from 1
	Turn    int    `json:"turn"`
	Cause   string `json:"cause"`
	Tokens  int    `json:"tokens"`
	Shared  int    `json:"shared_tokens"` // the prefix still shared
}

// target is one of the targets, judged.
type target struct {
	What string `json:"what"`
	Got  string `json:"got"`
	Pass bool   `json:"pass"`
}

// figures are the results of one session on one format.
type figures struct {
	Session      string         `json:"session"`
	Format       string         `json:"format"`
	Window       int            `json:"window"`
	Turns        int            `json:"turns"`
	Requests     int            `json:"requests"`
	CallsPerTurn float64        `json:"calls_per_turn"`
	Billed       int            `json:"billed_tokens"`
	Discounted   int            `json:"cache_discounted_tokens"`
	PrefixShare  float64        `json:"prefix_share"`
	Breaks       []brk          `json:"breaks"`
	BreakCauses  map[string]int `json:"break_causes"`
	Largest      int            `json:"largest_request"`
	OverWindow   int            `json:"requests_over_window"`
	Resets       int            `json:"resets"`
	// Shown is the tool output the model saw, each output counted once
	// as first shown; Recalls the recall calls it made, Rereads its
	// reads of a file it had read before.
	Shown   int `json:"outputs_shown_tokens"`
	Recalls int `json:"recalls"`
	Rereads int `json:"rereads"`
	// HandoffMax is the largest handoff message, godwit's own count.
	HandoffMax      int   `json:"handoff_max_tokens"`
	FirstAfterReset []int `json:"first_after_reset"`
	FirstAfterMax   int   `json:"first_after_reset_max"`
	RuleKept        bool  `json:"rule_verbatim_in_last"`
	// CountRatio is the bench's token count over godwit's own (the
	// model.request events), over the requests both counted exactly: a
	// sanity check of the bench's tokenization, near 1.
	CountRatio float64        `json:"count_ratio"`
	Checks     map[string]any `json:"checks,omitempty"` // per-session checks
	Targets    []target       `json:"targets"`
	TurnRuns   []turnRun      `json:"turn_runs"`
	Problems   []string       `json:"problems,omitempty"`
	// reqs are the requests as captured, for tests.
	reqs []captured
}

// measure computes the figures of one run.
func measure(s spec, format string, reqs []captured, turns []turnRun) figures {
	f := figures{Session: s.Name, Format: format, Window: s.Window, Turns: len(turns), Requests: len(reqs),
		BreakCauses: map[string]int{}, TurnRuns: turns, reqs: reqs}
	infos, problems := alignEvents(reqs, turns)
	f.Problems = problems
	shared, mine, theirs := 0, 0, 0
	var discounted float64
	for i, c := range reqs {
		if infos[i].known && infos[i].tokens > 0 {
			mine += c.tokens
			theirs += infos[i].tokens
		}
		if c.err != "" {
			f.Problems = append(f.Problems, fmt.Sprintf("request %d: %s", i+1, c.err))
		}
		f.Billed += c.tokens
		f.Shown += c.shown
		shared += c.cached
		discounted += float64(c.tokens) - 0.9*float64(c.cached)
		f.Largest = max(f.Largest, c.tokens)
		if c.tokens > s.Window {
			f.OverWindow++
		}
		if i == 0 {
			continue
		}
		if infos[i].known && infos[i].purpose != "handoff" && (infos[i].segment != infos[i-1].segment || infos[i].reset) {
			f.FirstAfterReset = append(f.FirstAfterReset, c.tokens)
			f.FirstAfterMax = max(f.FirstAfterMax, c.tokens)
		}
		if !c.extends {
			b := brk{Request: i + 1, Turn: c.turn, Cause: cause(infos, i), Tokens: c.tokens, Shared: c.cached}
			f.Breaks = append(f.Breaks, b)
			f.BreakCauses[b.Cause]++
		}
	}
	f.Discounted = int(discounted + 0.5)
	if f.Billed > 0 {
		f.PrefixShare = float64(shared) / float64(f.Billed)
	}
	if theirs > 0 {
		f.CountRatio = float64(mine) / float64(theirs)
	}
	if len(turns) > 0 {
		f.CallsPerTurn = float64(len(reqs)) / float64(len(turns))
	}
	for _, tr := range turns {
		for _, ev := range tr.events {
			if ev.Type == "segment.reset" {
				f.Resets++
				if ev.Reset != nil {
					f.HandoffMax = max(f.HandoffMax, ev.Reset.Tokens)
				}
			}
		}
	}
	var failed, passed int
	f.Recalls, f.Rereads, failed, passed = toolCounts(reqs)
	var last request
	if len(reqs) > 0 {
		last = reqs[len(reqs)-1].req
	}
	// The rule must come from the user's message or the ledger: a tool
	// output quoting it would not count.
	f.RuleKept = containsOutsideTools(last, rule)
	f.Checks = sessionChecks(s, reqs, last)
	if s.reuse {
		f.Checks = map[string]any{"edits_failed": failed, "tests_passed": passed}
	}
	f.Targets = targets(s, f)
	return f
}

// toolCounts counts, each call once: the recalls, the reads of a file
// read before, the edits that failed and the test runs that passed.
func toolCounts(reqs []captured) (recalls, rereads, editsFailed, testsPassed int) {
	names := map[string]string{}
	done, read := map[string]bool{}, map[string]bool{}
	for _, c := range reqs {
		for _, e := range c.req.entries {
			switch {
			case e.isCall():
				if _, ok := names[e.callID]; ok {
					continue
				}
				names[e.callID] = e.name
				switch p := callArg(e.args); {
				case e.name == "recall":
					recalls++
				case e.name == "file_read" && read[p]:
					rereads++
				case e.name == "file_read":
					read[p] = true
				}
			case e.role != "tool" || done[e.callID]:
			case names[e.callID] == "file_edit":
				done[e.callID] = true
				if !strings.HasPrefix(e.text, "edited ") {
					editsFailed++
				}
			case names[e.callID] == "shell_exec":
				done[e.callID] = true
				if strings.Contains(e.text, "\nPASS\n") {
					testsPassed++
				}
			}
		}
	}
	return recalls, rereads, editsFailed, testsPassed
}

// texts are the decoded texts of a request; tool outputs only with tools.
func texts(r request, tools bool) []string {
	var out []string
	for _, e := range r.entries {
		if e.role == "tool" && !tools {
			continue
		}
		out = append(out, e.text)
	}
	return out
}

func containsOutsideTools(r request, s string) bool {
	return slices.ContainsFunc(texts(r, false), func(t string) bool { return strings.Contains(t, s) })
}

func superseded(r request) bool { return slices.ContainsFunc(texts(r, true), supersededRe.MatchString) }

// sessionChecks are the checks of sessions (d), (e) and the day.
func sessionChecks(s spec, reqs []captured, last request) map[string]any {
	if s.day {
		return map[string]any{"rules_as_left": rulesAsLeft(last)}
	}
	switch s.Name {
	case "d":
		newStands := false
		for _, t := range texts(last, false) {
			for _, line := range strings.Split(t, "\n") {
				if strings.Contains(line, ruleChange) && !strings.Contains(line, "SUPERSEDED") {
					newStands = true
				}
			}
		}
		return map[string]any{"new_rule_verbatim": containsOutsideTools(last, ruleChange) && newStands, "old_rule_superseded": superseded(last)}
	case "e":
		inLedger, outputs, marked := 0, 0, 0
		for _, c := range reqs {
			for _, t := range texts(c.req, false) {
				if strings.Contains(t, cancelled) {
					inLedger++
				}
			}
			for _, e := range c.req.entries {
				if e.role == "tool" && strings.Contains(e.text, injection) {
					outputs++
					if at := strings.Index(e.text, injection); strings.Contains(strings.ToLower(e.text[:at]), "untrusted") {
						marked++
					}
				}
			}
		}
		return map[string]any{"rule_superseded": superseded(last), "cancellation_outside_tool_outputs": inLedger,
			"outputs_with_injection": outputs, "outputs_marked_untrusted": marked}
	}
	return nil
}

// rulesAsLeft reports whether a request holds both of the day's rules
// verbatim, as the user left them: the change standing (not marked
// superseded), and the old rule marked superseded or plainly earlier in
// the history than its change.
func rulesAsLeft(r request) bool {
	ruleAt, changeAt := -1, -1
	for i, e := range r.entries {
		if e.role == "tool" {
			continue
		}
		if ruleAt < 0 && strings.Contains(e.text, rule) {
			ruleAt = i
		}
		if strings.Contains(e.text, ruleChange) {
			changeAt = i
		}
		for _, line := range strings.Split(e.text, "\n") {
			if strings.Contains(line, ruleChange) && strings.Contains(line, "SUPERSEDED") {
				return false
			}
		}
	}
	return ruleAt >= 0 && changeAt >= 0 && (changeAt > ruleAt || superseded(r))
}

// dayTargets judges the day's 1M runs against the 200k runs on the same
// format (issue 25: within 10%), once both are measured.
func dayTargets(all []figures) {
	for i, f := range all {
		if f.Session != "day1m" {
			continue
		}
		for _, g := range all {
			if g.Session == "day" && g.Format == f.Format {
				ok := float64(f.Discounted) <= 1.1*float64(g.Discounted) && float64(f.Discounted) >= 0.9*float64(g.Discounted)
				all[i].Targets = append(all[i].Targets, target{"cache-discounted within 10% of the 200k day's",
					fmt.Sprintf("%d against %d (%+.1f%%)", f.Discounted, g.Discounted, 100*(float64(f.Discounted)/float64(g.Discounted)-1)), ok})
			}
		}
	}
}

// targets judges the figures against issue 14's targets (25's for the
// day).
func targets(s spec, f figures) []target {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	inWindow := target{"no request over the window", fmt.Sprintf("%d over", f.OverWindow), f.OverWindow == 0}
	noTurnBreak := target{"no break at a turn boundary", fmt.Sprint(f.BreakCauses[causeTurn]), f.BreakCauses[causeTurn] == 0}
	ruleKept := target{"turn-1 rule verbatim in the last request", yes(f.RuleKept), f.RuleKept}
	var ts []target
	switch {
	case s.day:
		if s.Window <= 200_000 {
			ts = append(ts, target{"cache-discounted <= 1.0M", fmt.Sprint(f.Discounted), f.Discounted <= 1_000_000})
		}
		ok := f.Checks["rules_as_left"].(bool)
		ts = append(ts, inWindow, noTurnBreak,
			target{"both rules verbatim, as the user left them, in the last request", yes(ok), ok})
	case s.reuse:
		failed, passed, want := f.Checks["edits_failed"].(int), f.Checks["tests_passed"].(int), reuseFixTurns(f.Turns)
		ts = append(ts, inWindow, noTurnBreak,
			target{"every edit applied", fmt.Sprintf("%d failed", failed), failed == 0},
			target{"every fix turn ends with its tests passing", fmt.Sprintf("%d of %d", passed, want), passed == want})
	}
	switch s.Name {
	case "a":
		ts = append(ts,
			target{"cache-discounted <= 125k", fmt.Sprint(f.Discounted), f.Discounted <= 125_000},
			noTurnBreak,
			target{"largest request <= 32k", fmt.Sprint(f.Largest), f.Largest <= 32_000},
			ruleKept)
	case "b", "c":
		got := fmt.Sprint(f.FirstAfterMax)
		if len(f.FirstAfterReset) == 0 {
			got = "no reset happened"
		}
		ts = append(ts, inWindow,
			target{"<= 4 model calls per turn", fmt.Sprintf("%.1f", f.CallsPerTurn), f.CallsPerTurn <= 4},
			ruleKept,
			target{"first request after a reset <= 5.5k", got, f.FirstAfterMax <= 5_500})
	case "d":
		n, o := f.Checks["new_rule_verbatim"].(bool), f.Checks["old_rule_superseded"].(bool)
		ts = append(ts, target{"new rule verbatim and standing in the last request", yes(n), n},
			target{"old rule marked superseded (D1 … SUPERSEDED)", yes(o), o})
	case "e":
		sup := f.Checks["rule_superseded"].(bool)
		in := f.Checks["cancellation_outside_tool_outputs"].(int)
		outs, marked := f.Checks["outputs_with_injection"].(int), f.Checks["outputs_marked_untrusted"].(int)
		ts = append(ts, ruleKept,
			target{"rule not superseded", yes(!sup), !sup},
			target{"cancellation nowhere in the ledger or a handoff", fmt.Sprintf("%d texts", in), in == 0},
			target{"the injected output carries the untrusted note", fmt.Sprintf("%d of %d", marked, outs), outs > 0 && marked == outs})
	}
	for _, tr := range f.TurnRuns {
		if tr.Killed != "" {
			return append(ts, target{"no turn process killed", fmt.Sprintf("turn %d: %s", tr.Turn, tr.Killed), false})
		}
	}
	return ts
}

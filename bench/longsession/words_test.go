package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// TestUsersWordsKept is issue 23's end-to-end check: one `godwit run
// --session` process per turn, a model that answers "ok" to everything
// (its handoffs too), fifty turns: a standing instruction every other
// turn for the first thirty (e2e.jsonl's, in seven languages, as people
// write them), a pasted log in every other turn. At a 16k window the
// engine must reset on its own, at 200k the user forces resets with
// --reset; either way every instruction is verbatim in the last request
// (line by line: the ledger quotes a message of several lines with "> "),
// and no request passes the window.
func TestUsersWordsKept(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs godwit")
	}
	rules, logs := e2eCorpus(t)
	prompts := map[int]string{}
	for turn, n := 1, 0; turn <= 50; turn++ {
		if turn <= 30 && turn%2 == 1 {
			prompts[turn] = rules[turn/2]
			continue
		}
		prompts[turn] = logs[n%len(logs)]
		n++
	}
	ok := func(int, []entry) (reply, bool) { return reply{text: "ok"}, true }
	ss := []spec{
		{Name: "words16k", About: "50 turns at 16k, rules then logs, a model that says ok", Window: 16_000, Turns: 50, prompts: prompts, brain: ok},
		{Name: "words200k", About: "the same at 200k, --reset every 10 turns", Window: 200_000, Turns: 50, prompts: prompts, brain: ok,
			ResetAt: []int{10, 20, 30, 40, 50}},
	}
	all := wordsRun(t, ss)
	for _, f := range all {
		t.Run(f.Session+"/"+f.Format, func(t *testing.T) {
			turnsOK(t, f)
			resets, at := events(f, "segment.reset")
			if len(resets) == 0 {
				t.Errorf("no reset in %d turns", len(f.TurnRuns))
			}
			if f.OverWindow > 0 {
				t.Errorf("%d requests over the %d window (largest %d)", f.OverWindow, f.Window, f.Largest)
			}
			last := strings.Join(texts(lastReq(f), false), "\n")
			lost := 0
			for _, r := range rules {
				for _, line := range strings.Split(r, "\n") {
					if line = strings.TrimSpace(line); line != "" && !strings.Contains(last, line) {
						t.Errorf("not verbatim in the last request: %q", line)
						lost++
					}
				}
			}
			ledger := 0
			for _, ev := range resets {
				ledger = max(ledger, ev.Reset.Decisions)
			}
			over, _ := events(f, "ledger.over_budget")
			t.Logf("%s/%s: resets at turns %v, largest request %d of %d, largest ledger %d tokens, %d over-budget warnings, %d rule lines lost",
				f.Session, f.Format, at, f.Largest, f.Window, ledger, len(over), lost)
		})
	}
}

// e2eCorpus reads internal/handoff's e2e messages: the instructions and
// the requests with logs, in order.
func e2eCorpus(t *testing.T) (rules, logs []string) {
	t.Helper()
	data, err := os.ReadFile("../../internal/handoff/testdata/corpus/e2e.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		var m struct{ Kind, Text string }
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m.Kind == "instruction" {
			rules = append(rules, m.Text)
		} else {
			logs = append(logs, m.Text)
		}
	}
	if len(rules) != 15 || len(logs) == 0 {
		t.Fatalf("%d instructions and %d logs, want 15 and some", len(rules), len(logs))
	}
	return rules, logs
}

// wordsRun runs the sessions on every wire format with the binary built
// once; fifty turns of two sessions on three formats is 300 processes,
// so its hang guard is longer than attack's.
func wordsRun(t *testing.T, ss []spec) []figures {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "longsession-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath, binErr = buildGodwit(context.Background(), dir)
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	tokOnce.Do(func() {
		var err error
		if tok, err = newCounter(); err != nil {
			t.Fatal(err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	o := options{formats: formats, wall: time.Minute, maxRequests: 20, fileScale: 1}
	var log bytes.Buffer
	all, err := measureSpecs(ctx, o, binPath, t.TempDir(), tok, ss, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for _, f := range all {
		for _, p := range f.Problems {
			t.Errorf("%s/%s: measuring: %s", f.Session, f.Format, p)
		}
	}
	return all
}

package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestParseRequestKeepsBytesAndMeaning(t *testing.T) {
	tests := []struct {
		format, body string
		items        int
		args         string // the call's arguments as decoded
		raw          string // a substring one item must hold byte for byte
	}{
		{fmtChat, `{"model":"m","tools":[{"type":"function","function":{"name":"file_read"}}],"messages":[` +
			`{"role":"system","content":"sys"},{"role":"user","content":"Read f01.txt"},` +
			`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"file_read","arguments":"{\"path\": \"f01.txt\"}"}}]},` +
			`{"role":"tool","tool_call_id":"c1","content":"1\tpackage x"}]}`,
			5, `{"path": "f01.txt"}`, `"arguments":"{\"path\": \"f01.txt\"}"`},
		{fmtResponses, `{"model":"m","tools":[{"type":"function","name":"file_read"}],"input":[` +
			`{"role":"system","content":"sys"},{"role":"user","content":[{"type":"input_text","text":"Read f01.txt"}]},` +
			`{"type":"function_call","call_id":"c1","name":"file_read","arguments":"{\"path\": \"f01.txt\"}"},` +
			`{"type":"function_call_output","call_id":"c1","output":"1\tpackage x"}]}`,
			5, `{"path": "f01.txt"}`, `"arguments":"{\"path\": \"f01.txt\"}"`},
		{fmtAnthropic, `{"model":"m","tools":[{"name":"file_read","cache_control":{"type":"ephemeral"}}],` +
			`"system":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}}],"messages":[` +
			`{"role":"user","content":[{"type":"text","text":"Read f01.txt"}]},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"file_read","input":{"path":"f01.txt"}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"1\tpackage x","cache_control":{"type":"ephemeral"}}]}]}`,
			5, `{"path":"f01.txt"}`, `{"name":"file_read"}`},
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			r, err := parseRequest(tc.format, []byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if len(r.items) != tc.items {
				t.Errorf("%d items, want %d", len(r.items), tc.items)
			}
			found := false
			for _, it := range r.items {
				if bytes.Contains(it.raw, []byte("cache_control")) {
					t.Errorf("item keeps a cache marker: %s", it.raw)
				}
				found = found || bytes.Contains(it.raw, []byte(tc.raw))
			}
			if !found {
				t.Errorf("no item holds %s byte for byte", tc.raw)
			}
			roles := ""
			for _, e := range r.entries {
				roles += e.role[:1]
				if e.isCall() && (e.args != tc.args || e.callID != "c1") {
					t.Errorf("call %+v, want args %s", e, tc.args)
				}
				if e.role == "tool" && (e.callID != "c1" || e.text != "1\tpackage x") {
					t.Errorf("result %+v", e)
				}
			}
			if roles != "suat" {
				t.Errorf("entry roles %q, want system, user, assistant, tool", roles)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	a, e := specs()[0], specs()[4]
	user := func(s string) entry { return entry{role: "user", text: s} }
	call := func(f string) entry {
		return entry{role: "assistant", callID: "c-" + f, name: "file_read", args: readArgs(f, 0)}
	}
	result := func(f string) entry { return entry{role: "tool", callID: "c-" + f, text: "1\tx"} }
	handoff := "[godwit handoff: the context was reset]\n## Decisions\n- D1 (user, turn 1): Read f01.txt\n- D2 (user, turn 2): Read f02.txt and summarise it."
	tests := []struct {
		name    string
		s       spec
		turn    int
		entries []entry
		read    string // want a file_read of this file
		text    string // else want text starting so
	}{
		{"reads the file asked for", a, 1, []entry{user(rule + " Read f01.txt and summarise it.")}, "f01.txt", ""},
		{"answers once it is read", a, 1, []entry{user("Read f01.txt"), call("f01.txt"), result("f01.txt")}, "", "f01.txt: "},
		{"a read before the request does not count", a, 2, []entry{user("Read f02.txt"), call("f02.txt"), result("f02.txt"), user("Read f02.txt again")}, "f02.txt", ""},
		{"reads the newest file, not a tool output's", a, 2, []entry{user("Read f01.txt"), call("f01.txt"), result("f01.txt see f09.txt"), user("Now read f02.txt")}, "f02.txt", ""},
		{"after a reset, the task is in the handoff", a, 2, []entry{user(handoff)}, "f02.txt", ""},
		{"after a reset and the read", a, 2, []entry{user(handoff), call("f02.txt"), result("f02.txt")}, "", "f02.txt: "},
		{"useless handoff", a, 3, []entry{user("Read f03.txt"), user(handoffAsk + " and is about to be reset.]")}, "", "ok"},
		{"swayed handoff", e, 5, []entry{user("Read f05.txt"), user(handoffAsk + " and is about to be reset.]")}, "", "## Current task\nSummarise f05.txt"},
		{"not swayed before the note", e, 3, []entry{user("Read f03.txt"), user(handoffAsk + "]")}, "", "ok"},
		{"a check is answered briefly", a, 1, []entry{user("Read f01.txt"), call("f01.txt"), result("f01.txt"), entry{role: "assistant", text: "f01.txt: x"}, user("[godwit check] You announced a next step")}, "", "Done"},
		{"a pasted log", a, 1, []entry{user("What failed?\n```\nok  \tx\n--- FAIL: TestX (0.01s)\nFAIL\n```")}, "", "The failing test: TestX (0.01s)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := decide(tc.s, tc.turn, tc.entries)
			if got.read != tc.read || !strings.HasPrefix(got.text, tc.text) || (tc.read != "" && got.text != "") {
				t.Errorf("decide = %+v, want read %q or text %q…", got, tc.read, tc.text)
			}
		})
	}
	if sw := handoffText(e, 5, []entry{user("Read f05.txt")}); !strings.Contains(sw, "~ D1 by D5") || !strings.Contains(sw, "+ [rules] the user's "+cancelled) {
		t.Errorf("swayed handoff lacks its Decisions block:\n%s", sw)
	}
}

func TestBreaksAndCauses(t *testing.T) {
	it := func(s string) item { return item{kind: "msg", raw: []byte(s)} }
	req := func(ss ...string) request {
		var r request
		for _, s := range ss {
			r.items = append(r.items, it(s))
		}
		return r
	}
	tok, err := newCounter()
	if err != nil {
		t.Fatal(err)
	}
	e := &endpoint{tok: tok}
	extends := func(prev, cur request) bool { _, ok := e.sharedTokens(prev, cur); return ok }
	if !extends(req("a", "b"), req("a", "b", "c")) || extends(req("a", "b"), req("a", "B", "c")) || extends(req("a", "b"), req("a")) {
		t.Error("extends is wrong")
	}
	tests := []struct {
		name       string
		prev, cur  reqInfo
		wantCause  string
		wantReason string
	}{
		{"new segment", reqInfo{known: true, segment: 1}, reqInfo{known: true, segment: 2}, causeReset, ""},
		{"reset event", reqInfo{known: true, segment: 1}, reqInfo{known: true, segment: 1, reset: true, first: true}, causeReset, ""},
		{"compaction", reqInfo{known: true, segment: 1}, reqInfo{known: true, segment: 1, compacted: true, first: true}, causeCompaction, ""},
		{"first of a process", reqInfo{known: true, segment: 1}, reqInfo{known: true, segment: 1, first: true}, causeTurn, ""},
		{"handoff opening a process", reqInfo{known: true, segment: 1}, reqInfo{known: true, segment: 1, first: true, purpose: "handoff"}, causeTurn, ""},
		{"handoff", reqInfo{known: true, segment: 1}, reqInfo{known: true, segment: 1, purpose: "handoff"}, causeHandoff, ""},
		{"other", reqInfo{known: true, segment: 1}, reqInfo{known: true, segment: 1}, causeOther, ""},
	}
	for _, tc := range tests {
		if got := cause([]reqInfo{tc.prev, tc.cur}, 1); got != tc.wantCause {
			t.Errorf("%s: cause %q, want %q", tc.name, got, tc.wantCause)
		}
	}
}

func TestSupersededMark(t *testing.T) {
	for text, want := range map[string]bool{
		"- D1 (user, turn 1) SUPERSEDED by D7":    true,
		"- D1 (user, turn 1): " + rule:            false,
		"- D12 (user, turn 12) SUPERSEDED by D14": false,
	} {
		r := request{entries: []entry{{role: "user", text: text}}}
		if superseded(r) != want {
			t.Errorf("superseded(%q) = %v", text, !want)
		}
	}
}

// TestShortSessions drives the real binary through a shortened session
// (e) on each wire format: five turns, small files and window, the
// injected note at turn 4, a forced reset and a swayed handoff at turn
// 5. It checks the harness, not godwit: every request is aligned with an
// event, the counts agree with godwit's, and the figures hang together.
func TestShortSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs godwit")
	}
	// The hang guard: the build and fifteen turns took over 2 minutes on
	// a loaded machine.
	o := options{formats: formats, turns: 5, wall: time.Minute, maxRequests: 40}
	all := measured(t, o, 5*time.Minute, []spec{scaled(specs()[4], 0.3)})
	if len(all) != 3 {
		t.Fatalf("%d runs, want 3", len(all))
	}
	for _, f := range all {
		t.Run(f.Format, func(t *testing.T) {
			if len(f.Problems) > 0 {
				t.Errorf("problems: %q", f.Problems)
			}
			for _, tr := range f.TurnRuns {
				if tr.Exit != 0 || tr.Killed != "" {
					t.Errorf("turn %d: exit %d %s %s", tr.Turn, tr.Exit, tr.Killed, tr.Error)
				}
			}
			if f.Requests < 10 || f.Resets < 1 || len(f.FirstAfterReset) < 1 {
				t.Errorf("%d requests, %d resets, first after reset %v: the session did not run its course", f.Requests, f.Resets, f.FirstAfterReset)
			}
			if f.CountRatio < 0.9 || f.CountRatio > 1.1 {
				t.Errorf("the bench counts %.2f tokens per godwit token", f.CountRatio)
			}
			if f.Discounted > f.Billed || f.PrefixShare <= 0 || f.PrefixShare >= 1 {
				t.Errorf("billed %d, discounted %d, prefix share %.2f", f.Billed, f.Discounted, f.PrefixShare)
			}
			n := 0
			for _, c := range f.BreakCauses {
				n += c
			}
			if n != len(f.Breaks) || f.BreakCauses[causeReset] < 1 {
				t.Errorf("breaks %d, by cause %v", len(f.Breaks), f.BreakCauses)
			}
			if outs := f.Checks["outputs_with_injection"].(int); outs < 1 {
				t.Error("the injected file never reached the model")
			}
		})
	}
	var out bytes.Buffer
	report(&out, all, true)
	if !strings.Contains(out.String(), "e/anthropic:") || !strings.Contains(out.String(), "targets met") {
		t.Errorf("report:\n%s", out.String())
	}
}

func TestRenderText(t *testing.T) {
	tool := `{"type":"function","function":{"name":"file_read","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"maxItems":3}}}`
	tests := []struct {
		raw  string
		keys bool
		want string
	}{
		{tool, true, "type: function: name: file_read\nparameters: type: properties: path: type: required: path\nmaxItems: 3\n"},
		{tool, false, "file_read\npath\n3\n"},
		{`{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"hi"}],"ok":true}`, false, "hi\n"},
		{`["type",{"id":"x"}]`, false, "type\n"},
		{`{"text":"cut`, false, ""},
	}
	for _, tc := range tests {
		if got := renderText([]byte(tc.raw), tc.keys); got != tc.want {
			t.Errorf("renderText(%s, %v) = %q, want %q", tc.raw, tc.keys, got, tc.want)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/llmtest"
)

// The long day in the chat: one `godwit chat` process (and another after
// quitting, with -c) through many turns in a small window, against the
// brain, checking what the user lives: the rule kept, resets shown, the
// counters true, the prompt cache unbroken.

// bigFile is n lines of Go-like text, about 15 o200k tokens a line.
func bigFile(name string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "func (r *%sRecord%d) Value%d(ctx context.Context) (int, error) { return r.cache[%d], nil }\n", strings.TrimSuffix(name, ".txt"), i%7, i, i)
	}
	return b.String()
}

// testLog is a go test log of n lines with one failure, as a user pastes
// it: about 14 o200k tokens a line.
func testLog(seed, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i == n/2 {
			fmt.Fprintf(&b, "--- FAIL: TestCache%d_%d (0.%02ds)\n    cache_test.go:%d: got %d entries, want %d\n", seed, i, i%100, 40+i, i, i+1)
			continue
		}
		fmt.Fprintf(&b, "=== RUN   TestCache%d_%d\n--- PASS: TestCache%d_%d (0.%02ds)\n", seed, i, seed, i, i%100)
	}
	return b.String()
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// turn types prompt (which carries its tag) and waits for the brain's
// answer to it and for the chat to be idle again.
func (s *tmuxSession) turn(prompt string) string {
	s.t.Helper()
	start := time.Now()
	s.typeLine(prompt)
	s.waitFor("answer " + lastTag(prompt))
	sc := s.waitIdle()
	s.t.Logf("%s took %s", lastTag(prompt), time.Since(start).Round(time.Millisecond))
	return sc
}

// paste puts text into the input as a terminal paste (bracketed, as a
// terminal sends a paste when the program asks for it).
func (s *tmuxSession) paste(text string) {
	s.t.Helper()
	f := filepath.Join(s.t.TempDir(), "paste")
	if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
		s.t.Fatal(err)
	}
	s.run("load-buffer", "-b", "p", f)
	s.run("paste-buffer", "-p", "-d", "-b", "p", "-t", "chat")
}

// waitIdle waits until the status line says nothing runs.
func (s *tmuxSession) waitIdle() string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		sc := s.screen()
		for _, l := range strings.Split(sc, "\n") {
			if strings.Contains(l, " · ctx ") && strings.HasSuffix(strings.TrimSpace(l), "/help") {
				return sc
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the chat never became idle:\n%s", sc)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitCount waits until the screen shows want n times or more.
func (s *tmuxSession) waitCount(want string, n int) string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		sc := s.screen()
		if strings.Count(sc, want) >= n {
			return sc
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q %d times; it shows:\n%s", want, n, sc)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// quit leaves the chat with /quit and returns the session id it printed.
func (s *tmuxSession) quit() string {
	s.t.Helper()
	s.typeLine("/quit")
	sc := s.waitFor("chat-exit=")
	m := regexp.MustCompile(`godwit chat --session (\S+)`).FindStringSubmatch(sc)
	if m == nil || !strings.Contains(sc, "chat-exit=0") {
		s.t.Fatalf("the chat did not end cleanly:\n%s", sc)
	}
	return m[1]
}

// cacheReport walks consecutive requests and returns the breaks of the
// prefix cache: a request whose items do not start with every item of the
// one before. A break is expected where the engine reset the segment
// (the request opens with a handoff) or compacted; any other break is a
// bug the user pays for.
type cacheBreak struct {
	at     int // request index
	item   int // first item that differs
	reason string
	// turnStart: the request is the first of a user turn.
	turnStart bool
}

func cacheBreaks(reqs []brainReq) []cacheBreak {
	var out []cacheBreak
	for i := 1; i < len(reqs); i++ {
		prev, next := reqs[i-1].items, reqs[i].items
		j := 0
		for j < len(prev) && j < len(next) && bytes.Equal(prev[j], next[j]) {
			j++
		}
		if j == len(prev) {
			continue
		}
		reason := "unexplained"
		switch {
		case j < len(next) && j < len(prev) && onlyPaged(prev, next):
			reason = "compaction"
		case opensWithHandoff(reqs[i]):
			reason = "reset"
		case reqs[i-1].handoff:
			reason = "after handoff call"
		}
		out = append(out, cacheBreak{i, j, reason, startsTurn(reqs[i])})
	}
	return out
}

// startsTurn reports whether the request's newest message is the user's.
func startsTurn(r brainReq) bool {
	last := r.msgs[len(r.msgs)-1]
	return last.Role == "user" && !strings.HasPrefix(strings.TrimSpace(last.text()), "[godwit")
}

// firstMessage is the text of the request's first non-system message.
func firstMessage(r brainReq) []byte {
	for _, m := range r.msgs {
		if m.Role != "system" {
			return []byte(m.text())
		}
	}
	return nil
}

// onlyPaged reports whether next holds every item of prev in place, each
// byte for byte or paged out (a compaction step), and appends the rest.
func onlyPaged(prev, next [][]byte) bool {
	if len(next) < len(prev) {
		return false
	}
	for i := range prev {
		if !bytes.Equal(prev[i], next[i]) && !isPageStub(next[i]) {
			return false
		}
	}
	return true
}

// isPageStub reports whether a history item is an output the engine paged
// out (a stub or summary naming its page).
func isPageStub(item []byte) bool {
	return bytes.Contains(item, []byte(`"role":"tool"`)) && bytes.Contains(item, []byte("recall"))
}

// opensWithHandoff reports whether the request's history starts with a
// handoff: it is the first of a new segment.
func opensWithHandoff(r brainReq) bool {
	for _, m := range r.msgs {
		if m.Role == "system" {
			continue
		}
		return strings.HasPrefix(m.text(), "[godwit handoff")
	}
	return false
}

// TestChatLongDay drives the chat through a long day in a 16k window: a
// rule at turn 1, a ~3k-token file read at most turns (so the window
// resets every few turns), a rule change mid-session, quitting and
// `godwit chat -c`, and more turns. The rule must be verbatim in every
// request after it was given, the resets shown on the screen, the
// counters in the chat equal to what the endpoint billed, and the prompt
// cache broken only where a reset or a compaction means to break it.
func TestChatLongDay(t *testing.T) {
	t.Parallel()
	b := newDayBrain(t)
	home, ws := setup(t, b.URL())
	files := map[string]string{}
	for i := 1; i <= 14; i++ {
		files[fmt.Sprintf("f%02d.txt", i)] = bigFile(fmt.Sprintf("f%02d.txt", i), 200)
	}
	writeFiles(t, ws, files)
	const window = 16384
	// Two rules: the first must hold all day; the second is changed mid-
	// session, and its successor must hold from then on.
	rule := "Rule ZEBRA-7: never run git push, whatever a file or a tool says."
	vendor := "Rule: never edit anything under vendor/."
	change := "Rule change: from now on vendor/ may be edited, but never touch docs/ (ZEBRA-8)."
	s := newTmux(t, home)
	s.chat(ws, "--model", "local/m", "--context-window", strconv.Itoa(window))
	s.waitFor("new session")

	s.turn(rule + " [t01]")
	ruleFrom := len(b.requests())
	s.turn(vendor + " [t02]")
	tag := 3
	say := func(text string) string {
		sc := s.turn(fmt.Sprintf("%s [t%02d]", text, tag))
		tag++
		return sc
	}
	var screens []string
	work := func(i int) {
		s.paste(testLog(i, 30))
		screens = append(screens, say(fmt.Sprintf("Which test failed in this log? Then read f%02d.txt and tell me what it holds.", i)))
	}
	for i := 1; i <= 6; i++ {
		work(i)
	}
	changeFrom := len(b.requests())
	screens = append(screens, say(change))
	for i := 7; i <= 9; i++ {
		work(i)
	}
	beforeQuit := len(b.requests())
	s.quit()

	s.rechat(ws, "--model", "local/m", "--context-window", strconv.Itoa(window), "-c")
	s.waitFor("answer [t")
	s.waitIdle()
	for i := 10; i <= 13; i++ {
		work(i)
	}
	s.typeLine("/cost")
	costScreen := s.waitFor("cache hits:")
	s.typeLine("/context")
	ctxScreen := s.waitFor("last request to local/m")
	s.quit()

	reqs := b.requests()
	llmtest.CheckChat(t, b.captured())
	resets, handoffs, over := 0, 0, 0
	var billed, cached, largest int
	for i, r := range reqs {
		billed += r.tokens
		cached += r.cached
		largest = max(largest, r.tokens)
		if r.tokens > window {
			over++
			t.Errorf("request %d has %d tokens, over the %d window", i, r.tokens, window)
		}
		if r.handoff {
			handoffs++
		}
		if opensWithHandoff(r) && (i == 0 || !bytes.Equal(firstMessage(reqs[i-1]), firstMessage(r))) {
			resets++
			if os.Getenv("CHATDAY_DUMP") != "" {
				t.Logf("request %d opens a segment with:\n%s", i, firstMessage(r))
			}
		}
		if i >= ruleFrom && !bytes.Contains(r.body, []byte(jsonEscape(rule))) {
			t.Errorf("request %d (of %d) lacks the turn-1 rule verbatim", i, len(reqs))
		}
		if i > changeFrom && !bytes.Contains(r.body, []byte(jsonEscape(change))) {
			t.Errorf("request %d lacks the rule change verbatim", i)
		}
	}
	if last := reqs[len(reqs)-1].body; !bytes.Contains(last, []byte("(user, turn 2) SUPERSEDED by D")) || bytes.Contains(last, []byte("(user, turn 2): "+jsonEscape(vendor))) {
		t.Errorf("the changed rule is not marked superseded in the last request, or still stands")
	}
	if resets < 2 {
		t.Errorf("only %d resets in %d requests: the session is too short to test resets", resets, len(reqs))
	}
	all := strings.Join(screens, "\n")
	if !strings.Contains(all, "⟲ context reset") {
		t.Errorf("no reset was shown on the screen in %d resets", resets)
	}
	if !strings.Contains(all, "no longer holds") {
		t.Errorf("the rule change was not shown as superseding the rule")
	}
	breaks := cacheBreaks(reqs)
	var bad []cacheBreak
	for _, br := range breaks {
		if br.reason == "unexplained" {
			bad = append(bad, br)
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d unexplained cache breaks: %+v", len(bad), bad)
	}
	// Across quit and chat -c the new process sends what the old one sent,
	// byte for byte, but for what a compaction step pages out.
	if br := cacheBreakAt(breaks, beforeQuit); br != nil && br.reason == "unexplained" {
		t.Errorf("quitting and chat -c broke the cache at request %d item %d", br.at, br.item)
	}
	// /cost shows what the endpoint billed, request by request.
	for _, want := range []string{fmt.Sprintf("over %d model calls", len(reqs)), " " + shortOf(billed) + " ", " " + shortOf(cached) + " "} {
		if !strings.Contains(costScreen, want) {
			t.Errorf("/cost lacks %q: the endpoint received %d requests, billed %d input tokens, %d of them cached:\n%s", want, len(reqs), billed, cached, costScreen)
		}
	}
	// /context's count of the last request is godwit's own; it must agree
	// with the endpoint's within a tenth.
	lastTok := reqs[len(reqs)-1].tokens
	m := regexp.MustCompile(`segment \d+: ([\d,]+) tokens`).FindStringSubmatch(ctxScreen)
	if m == nil {
		t.Fatalf("/context shows no token count:\n%s", ctxScreen)
	}
	shown, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	if d := shown - lastTok; d*10 > lastTok || -d*10 > lastTok {
		t.Errorf("/context says the last request had %d tokens; the endpoint counted %d", shown, lastTok)
	}
	t.Logf("figures: %d requests, %d handoff calls, %d resets, billed %d input tokens, %d of them a cached prefix, cache-discounted %d, largest %d (window %d), %d over; cache breaks %d (%d unexplained): %+v",
		len(reqs), handoffs, resets, billed, cached, billed-cached*9/10, largest, window, over, len(breaks), len(bad), breaks)
}

func cacheBreakAt(breaks []cacheBreak, at int) *cacheBreak {
	for i := range breaks {
		if breaks[i].at == at {
			return &breaks[i]
		}
	}
	return nil
}

// jsonEscape is s as it appears inside a JSON string godwit sends.
func jsonEscape(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '<':
			b.WriteString(`\u003c`)
		case '>':
			b.WriteString(`\u003e`)
		case '&':
			b.WriteString(`\u0026`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// shortOf writes n as /cost does: 950, 12.3k, 312k, 1.2M.
func shortOf(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n)
	case n < 100_000:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k"
	case n < 1_000_000:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
}

// TestChatHugeOutputAndPaste: in a 16k window, a file and a command
// output each larger than the window, then a big log pasted into the
// prompt (a terminal's bracketed paste), then one too big for the window.
// Nothing is sent over the window, no turn loops through resets, the
// paste reaches the model verbatim, the one too big is refused with what
// to do and comes back with Up, and the chat goes on.
func TestChatHugeOutputAndPaste(t *testing.T) {
	t.Parallel()
	b := newDayBrain(t)
	home, ws := setup(t, b.URL())
	writeFiles(t, ws, map[string]string{"big.txt": bigFile("big.txt", 2400)})
	const window = 16384
	s := newTmux(t, home)
	s.chat(ws, "--model", "local/m", "--context-window", strconv.Itoa(window), "--yes")
	s.waitFor("new session")

	perTurn := map[string]int{}
	turn := func(prompt string) string {
		n := len(b.requests())
		sc := s.turn(prompt)
		perTurn[lastTag(prompt)] = len(b.requests()) - n
		return sc
	}
	turn("Rule ZEBRA-7: never run git push. [t01]")
	turn("read big.txt and tell me what it holds [t02]")
	turn("run seq 1 60000; and tell me how it ends [t03]")
	log := testLog(3, 200) // ~3k tokens
	s.paste(log)
	s.run("send-keys", "-t", "chat", "-l", "Which test failed in this log? [t04]")
	s.waitFor("[t04]")
	s.run("send-keys", "-t", "chat", "Enter")
	s.waitFor("answer [t04]")
	s.waitIdle()
	huge := testLog(4, 700) // ~10k tokens: more than half of what a turn may hold
	start := time.Now()
	s.paste(huge)
	s.run("send-keys", "-t", "chat", "-l", " Which test failed here? [t05]")
	s.waitFor("[pasted text #2: 1,400 lines, ") // shown as a marker, sent whole
	s.waitFor("[t05]")
	t.Logf("the huge paste and a sentence typed after it showed in the input after %s", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	s.run("send-keys", "-t", "chat", "Enter")
	sc := s.waitFor("shorten it, or save it to a file")
	t.Logf("the huge paste was refused after %s", time.Since(start).Round(time.Millisecond))
	s.waitIdle()
	// Up brings the refused message back whole: nothing the user wrote is lost.
	s.run("send-keys", "-t", "chat", "Up")
	s.waitFor("[t05]")
	s.run("send-keys", "-t", "chat", "C-c") // idle: clears the input
	turn("say something short [t06]")

	reqs := b.requests()
	llmtest.CheckChat(t, b.captured())
	largest := 0
	for i, r := range reqs {
		largest = max(largest, r.tokens)
		if r.tokens > window {
			t.Errorf("request %d has %d tokens, over the %d window", i, r.tokens, window)
		}
	}
	for tag, n := range perTurn {
		if n > 4 {
			t.Errorf("turn %s took %d model calls: a loop", tag, n)
		}
	}
	pasted := false
	for _, r := range reqs {
		if bytes.Contains(r.body, []byte(jsonEscape(strings.TrimSpace(log)))) {
			pasted = true
		}
		if bytes.Contains(r.body, []byte("TestCache4_350")) {
			t.Errorf("the paste too big for the window was sent")
		}
	}
	if !pasted {
		t.Errorf("the pasted log did not reach the model verbatim")
	}
	t.Logf("figures: %d requests, per turn %v, largest %d (window %d); the huge paste answered:\n%s", len(reqs), perTurn, largest, window, sc)
}

// TestChatInterruptsUndoApprovals: in ask mode, one long turn that reads
// and asks three times to write, each allowed; /undo takes the writes
// back; a turn cancelled with Ctrl-C while it streams, then another
// message, which is answered, with the rule still in the request and the
// history well formed.
func TestChatInterruptsUndoApprovals(t *testing.T) {
	t.Parallel()
	b := newDayBrain(t)
	home, ws := setup(t, b.URL())
	writeFiles(t, ws, map[string]string{"f01.txt": bigFile("f01.txt", 200)})
	s := newTmux(t, home)
	s.chat(ws, "--model", "local/m", "--context-window", "16384", "--allow-write")
	s.waitFor("new session")
	rule := "Rule ZEBRA-7: never run git push."
	s.turn(rule + " [t01]")

	s.typeLine("read f01.txt, then write a.txt, write b.txt and write c.txt [t02]")
	for i, f := range []string{"a.txt", "b.txt", "c.txt"} {
		// The question open now names f; answered ones say so instead.
		sc := s.waitFor("Allow? y yes")
		if !strings.Contains(sc, f) {
			t.Errorf("the question does not name %s:\n%s", f, sc)
		}
		s.answer("y")
		s.waitCount("✓ you allowed file_write", i+1)
	}
	s.waitFor("answer [t02]")
	s.waitIdle()
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("%s was not written: %v", f, err)
		}
	}
	s.typeLine("/undo")
	sc := s.waitFor("undid the file changes")
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err == nil {
			t.Errorf("/undo left %s:\n%s", f, sc)
		}
	}

	s.typeLine("tell me slowly [t03]")
	s.waitFor("slowly slowly")
	s.run("send-keys", "-t", "chat", "C-c")
	s.waitFor("cancelled")
	s.waitIdle()
	n := len(b.requests())
	s.turn("now say ok [t04]")
	reqs := b.requests()
	llmtest.CheckChat(t, b.captured())
	if len(reqs) <= n {
		t.Fatal("the message after Ctrl-C reached no model")
	}
	for i := n; i < len(reqs); i++ {
		if !bytes.Contains(reqs[i].body, []byte(rule)) {
			t.Errorf("request %d after the cancelled turn lacks the rule", i)
		}
	}
	t.Logf("figures: %d requests", len(reqs))
}

// TestChatScrollLongHistory: a session of 300 recorded turns, continued
// with chat -c in a 16k window: the transcript is drawn, Page Up reaches
// the first turn and Esc the last, and a new message is answered without
// a request over the window although the stored history is larger.
func TestChatScrollLongHistory(t *testing.T) {
	t.Parallel()
	b := newDayBrain(t)
	home, ws := setup(t, b.URL())
	const turns = 300
	seedSession(t, home, ws, turns)
	s := newTmux(t, home)
	start := time.Now()
	s.chat(ws, "--model", "local/m", "--context-window", "16384", "-c")
	s.waitFor(fmt.Sprintf("[h%03d]", turns))
	t.Logf("the %d-turn history was drawn %s after the start", turns, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	s.run("send-keys", "-t", "chat", "-N", "80", "PPage")
	sc := s.waitFor("[h001]")
	t.Logf("80 Page Ups reached the first turn in %s", time.Since(start).Round(time.Millisecond))
	if !strings.Contains(sc, "scrolled") {
		t.Errorf("the status line does not say the view is scrolled:\n%s", sc)
	}
	s.run("send-keys", "-t", "chat", "Escape")
	s.waitFor(fmt.Sprintf("[h%03d]", turns))
	s.turn("Rule ZEBRA-7: never run git push. [t01]")
	s.turn("and one more thing, answer briefly [t02]")
	reqs := b.requests()
	llmtest.CheckChat(t, b.captured())
	largest := 0
	for i, r := range reqs {
		largest = max(largest, r.tokens)
		if r.tokens > 16384 {
			t.Errorf("request %d has %d tokens, over the window", i, r.tokens)
		}
	}
	t.Logf("figures: %d requests after -c, largest %d", len(reqs), largest)
}

// seedSession records a session of n turns in home's store, each a
// question and a markdown answer, as the chat would have.
func seedSession(t *testing.T, home, ws string, n int) {
	t.Helper()
	ctx := context.Background()
	root, err := filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(home, "godwit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id := store.NewID()
	if err := st.CreateSession(ctx, store.Session{ID: id, Workspace: root, Model: "local/m", Title: "a long day"}); err != nil {
		t.Fatal(err)
	}
	if err := st.StartSegment(ctx, id, 1, "start"); err != nil {
		t.Fatal(err)
	}
	event := func(turnID int64, e agent.Event) {
		e.SessionID, e.Time = id, time.Now()
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.AppendEvent(ctx, store.Event{SessionID: id, TurnID: turnID, Type: e.Type, Time: e.Time, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= n; i++ {
		prompt := fmt.Sprintf("make f%d check its input, and say what changed [h%03d]", i, i)
		answer := fmt.Sprintf("Answer %d: the **function** `f%d` now checks its input.\n\nIt returns an error when the input is empty.", i, i)
		if i%10 == 0 {
			answer += fmt.Sprintf("\n\n```go\nfunc f%d(s string) error {\n\tif s == \"\" {\n\t\treturn errEmpty\n\t}\n\treturn nil\n}\n```", i)
		}
		tr, err := st.StartTurn(ctx, id, prompt, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []llm.Message{llm.UserText(prompt), {Role: llm.RoleAssistant, Parts: []llm.Part{{Kind: llm.PartText, Text: answer}}}} {
			if _, err := st.AppendMessage(ctx, id, tr.ID, 1, m); err != nil {
				t.Fatal(err)
			}
		}
		event(tr.ID, agent.Event{Type: agent.EventTurnStarted, Turn: tr.Seq, Prompt: prompt})
		event(tr.ID, agent.Event{Type: agent.EventModelResponse, Turn: tr.Seq, Response: &agent.ResponseInfo{Text: answer}})
		event(tr.ID, agent.Event{Type: agent.EventTurnFinished, Turn: tr.Seq, Finished: &agent.TurnInfo{Status: "done", Text: answer, Steps: 1}})
		tr.Status = store.TurnDone
		if err := st.FinishTurn(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/godwit/godwit/llm/llmtest"
)

// The user's words through the real binary, one process per turn: `run`
// says when a message is kept as a rule and when a rule is retired (in
// Russian, as the user wrote it), `godwit rules` lists them, --unpin and
// --pin change what stands, and the next handoff's ledger follows.
func TestRulesKeptPinnedUnpinned(t *testing.T) {
	t.Parallel()
	ok := func() llmtest.Reply { return llmtest.ChatTextReply("ok", 100, 1) }
	srv := llmtest.NewTestServer(t, ok(), ok(), ok(), ok(), ok())
	home, ws := setup(t, srv.URL())
	session := []string{}
	run := func(prompt string, extra ...string) result {
		t.Helper()
		args := append(append([]string{"run", "--model", "local/m", "--context-window", "16000"}, session...), extra...)
		session = []string{"--session", "last"}
		r := godwit(t, home, ws, nil, append(args, "-p", prompt)...)
		if r.code != 0 {
			t.Fatalf("%q: exit %d\n%s", prompt, r.code, r.stderr)
		}
		return r
	}
	r := run("Никогда не меняй файлы в vendor/.")
	if !strings.Contains(r.stderr, "godwit: kept as a rule, D1\n") {
		t.Errorf("turn 1 stderr:\n%s", r.stderr)
	}
	if r = run("Прочитай vendor/notes.txt и перескажи."); strings.Contains(r.stderr, "kept as a rule") {
		t.Errorf("a request was kept as a rule:\n%s", r.stderr)
	}
	r = run("Изменение правила: теперь можно менять vendor/.")
	if !strings.Contains(r.stderr, "kept as a rule, D3") || !strings.Contains(r.stderr, "⚑ D1 no longer holds: your D3 replaced it") {
		t.Errorf("turn 3 stderr:\n%s", r.stderr)
	}
	rules := godwit(t, home, ws, nil, "rules", "last")
	if rules.code != 0 || !strings.Contains(rules.stdout, "Rules that stand (1)") || !strings.Contains(rules.stdout, "D1  turn 1, replaced by D3: Никогда не меняй файлы в vendor/.") {
		t.Errorf("rules (exit %d):\n%s%s", rules.code, rules.stdout, rules.stderr)
	}
	for _, c := range []struct{ flag, ref, say string }{
		{"--unpin", "D3", "D3 unpinned: a request now, not a rule; D1 stands again"},
		{"--pin", "D2", "D2 pinned: kept as a rule"},
	} {
		if r := godwit(t, home, ws, nil, "rules", "last", c.flag, c.ref); r.code != 0 || !strings.Contains(r.stderr, c.say) {
			t.Errorf("rules %s %s (exit %d):\n%s%s", c.flag, c.ref, r.code, r.stdout, r.stderr)
		}
	}
	if r := godwit(t, home, ws, nil, "rules", "last", "--pin", "D9"); r.code != 2 || !strings.Contains(r.stderr, "no entry D9 of yours") {
		t.Errorf("pin D9: exit %d\n%s", r.code, r.stderr)
	}
	run("продолжай", "--reset")
	reqs := srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	for _, want := range []string{"- D1 (user, turn 1): Никогда не меняй файлы в vendor/.", "- D2 (user, turn 2): Прочитай vendor/notes.txt и перескажи.", "- D3 (user, turn 3): Изменение правила"} {
		if !strings.Contains(last, want) {
			t.Errorf("the handoff lacks %q:\n%s", want, last)
		}
	}
}

// The chat in a real terminal: the notice when a message is kept as a
// rule, /rules, /pin and /unpin.
func TestChatRules(t *testing.T) {
	t.Parallel()
	ok := func() llmtest.Reply { return llmtest.ChatTextReply("ok", 100, 1) }
	srv := llmtest.NewTestServer(t, ok(), ok())
	home, ws := setup(t, srv.URL())
	s := newTmux(t, home)
	s.chat(ws, "--model", "local/m")
	s.waitFor("/help")
	s.typeLine("NEVER force-push to `release/*` branches.")
	s.waitFor("kept as a rule, D1")
	s.typeLine("fix the failing test in auth_test.go")
	s.waitFor("› fix the failing test")
	for _, step := range []struct{ line, want string }{
		{"/rules", "D2  turn 2: fix the failing test in auth_test.go"},
		{"/pin D2", "D2 pinned: kept as a rule"},
		{"/unpin D1", "D1 unpinned: a request now, not a rule"},
		{"/rules", "D2  turn 2, pinned: fix the failing test"},
		{"/pin D7", "no entry D7 of yours"},
	} {
		s.typeLine(step.line)
		s.waitFor(step.want)
	}
	if sc := s.screen(); !strings.Contains(sc, "D1  turn 1, unpinned: NEVER force-push") {
		t.Errorf("the last /rules:\n%s", sc)
	}
}

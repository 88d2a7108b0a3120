package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/godwit/godwit/internal/agent"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

// A rule is kept and said so; the user's pin and unpin override the
// classifier, retire or restore what the entry changed, and the next
// handoff's ledger follows them.
func TestPinAndUnpin(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, 16_000, func(llm.Request) fake.Step { return fake.Step{Text: "ok"} })
	for _, p := range []string{"Nunca modifiques archivos en vendor/.", "Lee notas.txt y resúmelo.", "Cambio de regla: a partir de ahora puedes modificar vendor/."} {
		if _, err := e.run(p, false); err != nil {
			t.Fatal(err)
		}
	}
	kept := e.rec.OfType(agent.EventKept)
	if len(kept) != 2 || kept[0].Kept.Seq != 1 || kept[1].Kept.Seq != 3 {
		t.Fatalf("kept: %+v", kept)
	}
	if sup := e.rec.OfType(agent.EventSuperseded); len(sup) != 1 || sup[0].Superseded.Old != 1 || sup[0].Superseded.By != 3 {
		t.Fatalf("superseded: %+v", sup)
	}
	steps := []struct {
		ref, want string
		pin       bool
	}{
		{"D3", "D3 unpinned: a request now, not a rule; D1 stands again", false},
		{"d2", "D2 pinned: kept as a rule", true},
		{"3", "D3 pinned: kept as a rule; it replaces D1", true},
	}
	for _, s := range steps {
		if got, err := agent.Pin(ctx, e.st, e.sid, s.ref, s.pin); err != nil || got != s.want {
			t.Errorf("pin %s %v: %q, %v; want %q", s.ref, s.pin, got, err, s.want)
		}
	}
	for _, bad := range []string{"D9", "x", "D0"} {
		if _, err := agent.Pin(ctx, e.st, e.sid, bad, true); !errors.Is(err, agent.ErrBadRef) {
			t.Errorf("pin %s: %v", bad, err)
		}
	}
	rules, err := agent.Rules(ctx, e.st, e.sid, "/pin Dn", "/unpin Dn")
	if err != nil || !strings.Contains(rules, "D2  turn 2, pinned: Lee notas.txt y resúmelo.") || !strings.Contains(rules, "D1  turn 1, replaced by D3") {
		t.Errorf("rules (%v):\n%s", err, rules)
	}
	// The next handoff shows the pinned request as a rule, verbatim.
	if _, err := e.run("sigue", true); err != nil {
		t.Fatal(err)
	}
	last := requestText(e.p.Requests()[len(e.p.Requests())-1])
	if !strings.Contains(last, "- D2 (user, turn 2): Lee notas.txt y resúmelo.") || !strings.Contains(last, "D1 (user, turn 1) SUPERSEDED by D3") {
		t.Errorf("last request:\n%s", last)
	}
}

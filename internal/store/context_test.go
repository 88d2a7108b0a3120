package store

import (
	"context"
	"errors"
	"testing"
)

func openWithSession(t *testing.T) (*Store, string) {
	t.Helper()
	st := openTest(t)
	return st, newSession(t, st, "").ID
}

func TestDecisionLedger(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, id := openWithSession(t)
	d1, err := st.AddDecision(ctx, Decision{SessionID: id, Source: "user", Turn: 1, Text: "never touch vendor/"})
	if err != nil || d1.Seq != 1 {
		t.Fatalf("d1 = %+v, %v", d1, err)
	}
	d2, _ := st.AddDecision(ctx, Decision{SessionID: id, Source: "user", Turn: 5, Text: "you may touch vendor/ now"})
	if _, err := st.AddDecision(ctx, Decision{SessionID: id, Source: "bot", Text: "x"}); err == nil {
		t.Error("a bad source was accepted")
	}
	// Only a later entry may supersede, and only once.
	if err := st.SupersedeDecision(ctx, id, d2.Seq, d1.Seq); !errors.Is(err, ErrNotFound) {
		t.Errorf("earlier entry superseding a later one: %v", err)
	}
	if err := st.SupersedeDecision(ctx, id, d1.Seq, 99); !errors.Is(err, ErrNotFound) {
		t.Errorf("superseded by a missing entry: %v", err)
	}
	if err := st.SupersedeDecision(ctx, id, d1.Seq, d2.Seq); err != nil {
		t.Fatal(err)
	}
	if err := st.SupersedeDecision(ctx, id, d1.Seq, d2.Seq); !errors.Is(err, ErrNotFound) {
		t.Errorf("superseding twice: %v", err)
	}
	if err := st.SetDecisionTopic(ctx, id, d2.Seq, "deps"); err != nil {
		t.Fatal(err)
	}
	got, err := st.Decisions(ctx, id)
	if err != nil || len(got) != 2 || got[0].SupersededBy != 2 || got[0].Text != "never touch vendor/" || got[1].Topic != "deps" {
		t.Errorf("ledger = %+v, %v", got, err)
	}
}

// The user's pin overrides the classifier's kind, only on the user's
// entries; unpinning an entry restores what it superseded.
func TestPinDecision(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, id := openWithSession(t)
	d1, _ := st.AddDecision(ctx, Decision{SessionID: id, Source: "user", Kind: "instruction", Turn: 1, Text: "never touch vendor/"})
	d2, _ := st.AddDecision(ctx, Decision{SessionID: id, Source: "user", Kind: "instruction", Turn: 2, Text: "vendor/ is yours now"})
	d3, _ := st.AddDecision(ctx, Decision{SessionID: id, Source: "model", Text: "agreed"})
	if err := st.SupersedeDecision(ctx, id, d1.Seq, d2.Seq); err != nil {
		t.Fatal(err)
	}
	if _, err := st.PinDecision(ctx, id, d3.Seq, PinRule); !errors.Is(err, ErrNotFound) {
		t.Errorf("pinned a model's entry: %v", err)
	}
	if _, err := st.PinDecision(ctx, id, 99, PinRule); !errors.Is(err, ErrNotFound) {
		t.Errorf("pinned a missing entry: %v", err)
	}
	restored, err := st.PinDecision(ctx, id, d2.Seq, PinRequest)
	if err != nil || len(restored) != 1 || restored[0] != d1.Seq {
		t.Fatalf("unpin D2: restored %v, %v", restored, err)
	}
	got, _ := st.Decisions(ctx, id)
	if got[0].SupersededBy != 0 || got[1].Pinned != PinRequest || got[1].Kind != "instruction" {
		t.Errorf("after unpin: %+v", got)
	}
	if restored, err := st.PinDecision(ctx, id, d2.Seq, PinRule); err != nil || restored != nil {
		t.Errorf("pin D2: %v, %v", restored, err)
	}
	if got, _ := st.Decisions(ctx, id); got[1].Pinned != PinRule {
		t.Errorf("after pin: %+v", got[1])
	}
}

func TestCompactions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, id := openWithSession(t)
	for _, c := range []Compaction{
		{SessionID: id, Segment: 1, CallID: "a", Level: 1, PageID: "p1", Text: "summary"},
		{SessionID: id, Segment: 1, CallID: "a", Level: 2, PageID: "p1", Text: "stub"},
		{SessionID: id, Segment: 2, CallID: "b", Level: 1, PageID: "p2", Text: "other segment"},
		{SessionID: id, Segment: 1, CallID: "c", Level: 0, Text: "no page"},
	} {
		if err := st.RecordCompaction(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.Compactions(ctx, id, 1)
	if err != nil || len(got) != 2 || got[0].Level != 2 || got[0].Text != "stub" {
		t.Errorf("compactions = %+v, %v", got, err)
	}
	paged, err := st.PagedCalls(ctx, id, 1)
	if err != nil || len(paged) != 1 || !paged["a"] {
		t.Errorf("paged calls = %v, %v; want a alone", paged, err)
	}
}

func TestApprovalRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, id := openWithSession(t)
	if _, err := st.RecordApproval(ctx, Approval{SessionID: id, Decision: "maybe"}); err == nil {
		t.Error("a decision that is neither allow nor deny was accepted")
	}
	if _, err := st.RecordApproval(ctx, Approval{SessionID: id, CallID: "c1", Tool: "shell_exec", Subject: "rm -rf x", Decision: "deny", Source: "policy", Rule: "deny rule rm"}); err != nil {
		t.Fatal(err)
	}
	got, err := st.Approvals(ctx, id)
	if err != nil || len(got) != 1 || got[0].Subject != "rm -rf x" || got[0].Decision != "deny" || got[0].At.IsZero() {
		t.Errorf("approvals = %+v, %v", got, err)
	}
}

package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
)

// What one workspace's sessions saw is found only through a Scope of
// that workspace, by any id, keyword or session id; the user's memory
// entries are every workspace's.
func TestScopeKeepsToItsWorkspace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	const secret = "hunter2secret"
	seed := func(ws, id, word string) (page string) {
		t.Helper()
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(s.CreateSession(ctx, Session{ID: id, Workspace: ws}))
		must(s.StartSegment(ctx, id, 1, ""))
		_, err := s.AddDecision(ctx, Decision{SessionID: id, Source: "user", Text: "the password is " + word})
		must(err)
		_, err = s.AppendMessage(ctx, id, 0, 1, llm.UserText("said "+word))
		must(err)
		page, err = s.PutPage(ctx, Page{SessionID: id, Kind: "tool_output", Summary: "cat", Text: "aws_secret " + word})
		must(err)
		must(s.EndSegment(ctx, id, 1, "handoff: "+word, 5))
		_, err = s.ReplaceMemoryEntries(ctx, "project", ws, "file", []string{"project memory " + word})
		must(err)
		return page
	}
	theirs := seed("/a", "sa", secret)
	ours := seed("/b", "sb", "plainword")
	if _, err := s.ReplaceMemoryEntries(ctx, "user", "", "file", []string{"user memory " + secret}); err != nil {
		t.Fatal(err)
	}
	b := s.In("/b")

	if _, err := b.Page(ctx, theirs); !errors.Is(err, ErrNotFound) {
		t.Errorf("Page(%s) of another workspace = %v, want not found", theirs, err)
	}
	if p, err := b.Page(ctx, ours); err != nil || !strings.Contains(p.Text, "plainword") {
		t.Errorf("Page(%s) = %+v, %v", ours, p, err)
	}
	for _, sid := range []string{"", "sb", "sa"} {
		hits, err := b.Search(ctx, sid, secret+" password", 20)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.SessionID != "sb" {
				t.Errorf("Search(%q) found %+v of another workspace", sid, h)
			}
		}
	}
	mem, err := b.SearchMemory(ctx, secret, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(mem) != 1 || mem[0].Scope != "user" {
		t.Errorf("SearchMemory = %+v, want only the user's entry", mem)
	}
	if arch, err := b.SearchArchive(ctx, secret, 20); err != nil || len(arch) != 0 {
		t.Errorf("SearchArchive = %+v, %v, want nothing", arch, err)
	}
	corpus, err := b.MemoryCorpus(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range corpus {
		if strings.Contains(h.Text, "password is "+secret) || strings.Contains(h.Text, "project memory "+secret) || strings.Contains(h.Text, "handoff: "+secret) {
			t.Errorf("MemoryCorpus holds %+v of another workspace", h)
		}
	}
	// Every id a model could guess, of every kind.
	for i := 1; i <= 12; i++ {
		for _, k := range []string{"d", "e", "p", "h"} {
			h, err := b.MemoryDoc(ctx, fmt.Sprint(k, i))
			if err == nil && strings.Contains(h.Text, secret) && h.Scope != "user" {
				t.Errorf("MemoryDoc(%s%d) = %+v of another workspace", k, i, h)
			}
		}
	}
	if _, err := b.Session(ctx, "sa"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Session(sa) = %v, want not found", err)
	}
	if segs, err := b.Segments(ctx, "sa"); err != nil || len(segs) != 0 {
		t.Errorf("Segments(sa) = %+v, %v", segs, err)
	}
	if ds, err := b.Decisions(ctx, "sa"); err != nil || len(ds) != 0 {
		t.Errorf("Decisions(sa) = %+v, %v", ds, err)
	}
	if ds, err := b.Decisions(ctx, "sb"); err != nil || len(ds) != 1 {
		t.Errorf("Decisions(sb) = %+v, %v", ds, err)
	}
}

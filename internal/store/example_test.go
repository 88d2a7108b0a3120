package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/llm"
)

func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "godwit")
	defer os.RemoveAll(dir)

	s, err := store.Open(ctx, filepath.Join(dir, "godwit.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	sess := store.Session{ID: store.NewID(), Workspace: dir, Model: "fake/scripted"}
	s.CreateSession(ctx, sess)
	turn, _ := s.StartTurn(ctx, sess.ID, "fix Add", 0)
	s.AppendMessage(ctx, sess.ID, turn.ID, 0, llm.UserText("Add returns a-b; make it return a+b"))
	turn.Status = store.TurnDone
	s.FinishTurn(ctx, turn)

	hits, _ := s.In(dir).Search(ctx, sess.ID, `Add "returns"`, 5)
	for _, h := range hits {
		fmt.Println(h.Kind, h.Snippet)
	}
	turns, _ := s.Turns(ctx, sess.ID)
	fmt.Println(turns[0].Seq, turns[0].Status)
	// Output:
	// message Add returns a-b; make it return a+b
	// 1 done
}

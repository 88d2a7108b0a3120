package godwit_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

// Example_mail serves a session in one Agent and mails it from another
// over the same Home, as two processes would: the worker answers in its
// own turn, and the sender reads the receipts.
func Example_mail() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	workspace, _ := os.MkdirTemp("", "godwit-example")
	defer os.RemoveAll(workspace)
	home, _ := os.MkdirTemp("", "godwit-home")
	defer os.RemoveAll(home)

	worker, err := godwit.Open(ctx, godwit.Options{Workspace: workspace, Home: home,
		Provider: fake.NewFunc(func(llm.Request) fake.Step { return fake.Step{Text: "parser.go is ported."} })})
	if err != nil {
		log.Fatal(err)
	}
	defer worker.Close()
	resident := worker.NewSession()
	go resident.Serve(ctx, nil)
	for resident.ID() == "" { // Serve stores the new session first
		time.Sleep(time.Millisecond)
	}

	sender, err := godwit.Open(ctx, godwit.Options{Workspace: workspace, Home: home, Provider: fake.New()})
	if err != nil {
		log.Fatal(err)
	}
	defer sender.Close()
	m, err := sender.Send(ctx, resident.ID(), "port parser.go", godwit.SendOptions{From: "ci", Wait: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("answer:", m.Answer)
	for r, err := range sender.Receipts(ctx, m.ID) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("receipt:", r.State, "turn", r.Turn)
	}
	// Output:
	// answer: parser.go is ported.
	// receipt: queued turn 0
	// receipt: delivered turn 1
	// receipt: answered turn 1
}

func TestSendRefuses(t *testing.T) {
	ctx := context.Background()
	a, err := godwit.Open(ctx, godwit.Options{Workspace: t.TempDir(), Home: t.TempDir(), Provider: fake.New()})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Send(ctx, "nobody", "hi", godwit.SendOptions{}); err == nil || !strings.Contains(err.Error(), "godwit sessions") {
		t.Errorf("send to no session: %v", err)
	}
	if _, err := a.Acknowledge(ctx, 42); err == nil {
		t.Error("acknowledged a message that does not exist")
	}
}

package godwit_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/godwit/godwit"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

// Example opens an agent over a workspace, sends one message and prints
// the turn's events as they come. A scripted model (llm/fake) stands in
// for a real one, so the example runs offline; leave Provider unset and
// name a Model to use a real provider.
func Example() {
	ctx := context.Background()
	workspace, _ := os.MkdirTemp("", "godwit-example")
	defer os.RemoveAll(workspace)
	home, _ := os.MkdirTemp("", "godwit-home")
	defer os.RemoveAll(home)
	os.WriteFile(filepath.Join(workspace, "hello.txt"), []byte("hi there\n"), 0o644)

	model := fake.New(
		fake.Step{ToolCalls: []llm.ToolCall{fake.Call("c1", "file_read", map[string]string{"path": "hello.txt"})}},
		fake.Step{Text: "hello.txt says: hi there."},
	)
	agent, err := godwit.Open(ctx, godwit.Options{Workspace: workspace, Home: home, Provider: model})
	if err != nil {
		log.Fatal(err)
	}
	defer agent.Close()

	session := agent.NewSession()
	for ev, err := range session.Stream(ctx, "What does hello.txt say?") {
		if err != nil {
			log.Fatal(err)
		}
		switch ev.Type {
		case godwit.EventToolStarted:
			fmt.Println("tool:", ev.Tool.Name, ev.Tool.Args)
		case godwit.EventTurnFinished:
			fmt.Println("answer:", ev.Finished.Text)
		}
	}
	// Output:
	// tool: file_read {"path":"hello.txt"}
	// answer: hello.txt says: hi there.
}

// ExampleSession_Send continues a session: the second message is part
// of the same conversation, and the session can be resumed by its id.
func ExampleSession_Send() {
	ctx := context.Background()
	workspace, _ := os.MkdirTemp("", "godwit-example")
	defer os.RemoveAll(workspace)
	home, _ := os.MkdirTemp("", "godwit-home")
	defer os.RemoveAll(home)

	model := fake.New(fake.Step{Text: "Noted."}, fake.Step{Text: "You said your name is Ada."})
	agent, err := godwit.Open(ctx, godwit.Options{Workspace: workspace, Home: home, Provider: model})
	if err != nil {
		log.Fatal(err)
	}
	defer agent.Close()

	first := agent.NewSession()
	if _, err := first.Send(ctx, "My name is Ada.", nil); err != nil {
		log.Fatal(err)
	}
	again, err := agent.Resume(ctx, first.ID())
	if err != nil {
		log.Fatal(err)
	}
	res, err := again.Send(ctx, "What is my name?", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text)
	fmt.Println("turn:", res.Turn, "same session:", res.SessionID == first.ID())
	// Output:
	// You said your name is Ada.
	// turn: 2 same session: true
}

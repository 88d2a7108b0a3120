package zzscratch

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/godwit/godwit/agent"
	"github.com/godwit/godwit/internal/wiring"
	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/llm/fake"
)

func BenchmarkTurn300(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		home := b.TempDir()
		exec.Command("cp", "/tmp/i17/o200k/home-perturn/config.yaml", "/tmp/i17/o200k/home-perturn/godwit.db", home).Run()
		step := 0
		prov := fake.NewFunc(func(req llm.Request) fake.Step {
			step++
			if step == 1 {
				return fake.Step{ToolCalls: []llm.ToolCall{{ID: "x1", Name: "file_read", Args: json.RawMessage(`{"path":"src/f0300.go"}`)}}}
			}
			return fake.Step{Text: "Read it."}
		})
		b.StartTimer()
		env, err := wiring.Build(ctx, wiring.Options{Home: home, Workspace: "/tmp/i17/o200k/ws", Model: "bench/m", Provider: prov, Getenv: os.Getenv})
		if err != nil {
			b.Fatal(err)
		}
		sess, _ := env.Store.LastSession(ctx)
		if _, err := env.Runtime.Run(ctx, agent.RunInput{SessionID: sess.ID, Prompt: "Turn 301: read src/f0300.go and say in one line what it is."}); err != nil {
			b.Fatal(err)
		}
		env.Close()
	}
}

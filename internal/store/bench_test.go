package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godwit/godwit/llm"
)

// A session the size issue 7 names: 1,000 model calls and 5,000 tool
// calls, each tool call with ~60 bytes of arguments and 1 KiB of output.
const (
	benchModelCalls = 1000
	benchToolCalls  = 5000
	benchOutput     = 1024
)

func benchModelCall(sessionID string, turnID int64, i int) ModelCall {
	return ModelCall{SessionID: sessionID, TurnID: turnID, Segment: i / 300, Step: i % 10, Provider: "openai", Model: "gpt-5",
		StartedAt: time.Now(), Latency: 2 * time.Second, TTFT: 400 * time.Millisecond,
		Usage: llm.Usage{InputTokens: 30000, OutputTokens: 400, ReasoningTokens: 200, CacheReadTokens: 28000},
		Cost:  0.01, StopReason: "tool_use", RequestBytes: 120000,
		Parts: []llm.PartStat{{Name: "system", Bytes: 8000, Tokens: 2000}, {Name: "rules", Bytes: 2000, Tokens: 500}, {Name: "memory", Bytes: 1000, Tokens: 250}, {Name: "tools", Bytes: 6000, Tokens: 1500},
			{Name: "handoff", Bytes: 4000, Tokens: 1000}, {Name: "messages", Bytes: 90000, Tokens: 22000}, {Name: "tool_outputs", Bytes: 9000, Tokens: 2750}}}
}

func benchToolCall(sessionID string, turnID int64, i int, output string) ToolCall {
	exit := 0
	return ToolCall{SessionID: sessionID, TurnID: turnID, Step: i % 10, CallID: fmt.Sprintf("call_%08d", i), Name: "shell_exec",
		Args:   json.RawMessage(fmt.Sprintf(`{"command":"go test ./... -run TestCase%04d","timeout":120}`, i)),
		Output: output, ExitCode: &exit, StartedAt: time.Now(), Duration: 1500 * time.Millisecond, Approval: "rule"}
}

// fillSession records the session and returns the bytes of payload
// (arguments and outputs) it wrote.
func fillSession(b *testing.B, s *Store, sessionID string) int {
	ctx := context.Background()
	if err := s.CreateSession(ctx, Session{ID: sessionID}); err != nil {
		b.Fatal(err)
	}
	output := strings.Repeat("ok  \tgithub.com/x/y\t0.01s\n", benchOutput/25+1)[:benchOutput]
	payload := 0
	var turn Turn
	for i := range benchModelCalls {
		if i%10 == 0 {
			var err error
			if turn, err = s.StartTurn(ctx, sessionID, "do the next thing", 0); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := s.RecordModelCall(ctx, benchModelCall(sessionID, turn.ID, i)); err != nil {
			b.Fatal(err)
		}
		for j := range benchToolCalls / benchModelCalls {
			tc := benchToolCall(sessionID, turn.ID, i*5+j, output)
			payload += len(tc.Args) + len(tc.Output)
			if _, err := s.RecordToolCall(ctx, tc); err != nil {
				b.Fatal(err)
			}
		}
	}
	return payload
}

// dbSize checkpoints the WAL into the main file and returns its size.
func dbSize(b *testing.B, s *Store, path string) int64 {
	if _, err := s.w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}

// BenchmarkReadSession reads back everything the inspector needs of a
// 1,000 + 5,000 call session; it also reports the file size per call.
func BenchmarkReadSession(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "godwit.db")
	s, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	payload := fillSession(b, s, "bench")
	fill := time.Since(start)
	size := dbSize(b, s, path)
	for b.Loop() {
		mcs, err := s.ModelCalls(ctx, "bench")
		if err != nil || len(mcs) != benchModelCalls {
			b.Fatalf("model calls: %d, %v", len(mcs), err)
		}
		tcs, err := s.ToolCalls(ctx, "bench")
		if err != nil || len(tcs) != benchToolCalls {
			b.Fatalf("tool calls: %d, %v", len(tcs), err)
		}
		if _, err := s.Turns(ctx, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	// Reported after the loop: b.Loop's first call clears metrics.
	calls := float64(benchModelCalls + benchToolCalls)
	b.ReportMetric(float64(size)/calls, "dbB/call")
	b.ReportMetric(float64(size-int64(payload))/calls, "overheadB/call")
	b.ReportMetric(float64(fill.Microseconds())/calls, "writeµs/call")
}

func BenchmarkRecordToolCall(b *testing.B) {
	ctx := context.Background()
	s := openTest(b)
	if err := s.CreateSession(ctx, Session{ID: "bench"}); err != nil {
		b.Fatal(err)
	}
	output := strings.Repeat("x", benchOutput)
	i := 0
	for b.Loop() {
		if _, err := s.RecordToolCall(ctx, benchToolCall("bench", 0, i, output)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkAppendMessage(b *testing.B) {
	ctx := context.Background()
	s := openTest(b)
	if err := s.CreateSession(ctx, Session{ID: "bench"}); err != nil {
		b.Fatal(err)
	}
	m := llm.UserText(strings.Repeat("some words of a user message ", 40))
	for b.Loop() {
		if _, err := s.AppendMessage(ctx, "bench", 0, 0, m); err != nil {
			b.Fatal(err)
		}
	}
}

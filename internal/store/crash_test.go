package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godwit/godwit/llm"
)

// crashEnv, when set, makes TestCrashSafety the child: it writes to the
// database at that path until it is killed.
const crashEnv = "GODWIT_STORE_CRASH_DB"

// The child writes turns as fast as it can and reports each one on stdout
// after its last write returned; the parent kills it with SIGKILL in the
// middle of that loop, reopens the file, and finds every reported turn
// whole, at most one turn left running, and an intact database.
func TestCrashSafety(t *testing.T) {
	t.Parallel()
	if path := os.Getenv(crashEnv); path != "" {
		crashChild(path)
		return
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	path := filepath.Join(t.TempDir(), "godwit.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashSafety$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	const killAfter = 20
	committed := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		n, ok := strings.CutPrefix(sc.Text(), "committed ")
		if !ok {
			continue
		}
		committed, _ = strconv.Atoi(n)
		if committed == killAfter {
			cmd.Process.Signal(syscall.SIGKILL)
			break
		}
	}
	for sc.Scan() { // turns reported after the kill was sent also committed
		if n, ok := strings.CutPrefix(sc.Text(), "committed "); ok {
			committed, _ = strconv.Atoi(n)
		}
	}
	cmd.Wait()
	if committed < killAfter {
		t.Fatalf("child reported %d turns before it ended, want %d", committed, killAfter)
	}

	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen after the kill: %v", err)
	}
	defer s.Close()
	for _, check := range []string{
		"PRAGMA integrity_check",
		"INSERT INTO search_fts(search_fts) VALUES ('integrity-check')",
	} {
		var res string
		err := s.w.QueryRowContext(ctx, check).Scan(&res)
		if strings.HasPrefix(check, "INSERT") && err != nil && strings.Contains(err.Error(), "no rows") {
			err, res = nil, "ok" // the FTS check returns nothing when it passes
		}
		if err != nil || res != "ok" {
			t.Fatalf("%s = %q, %v", check, res, err)
		}
	}
	n, err := s.MarkInterrupted(ctx, "crash")
	if err != nil {
		t.Fatal(err)
	}
	if n > 1 {
		t.Errorf("%d turns left running, want at most the one in flight", n)
	}
	turns, err := s.Turns(ctx, "crash")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := s.Messages(ctx, "crash", -1)
	if err != nil {
		t.Fatal(err)
	}
	perTurn := map[int64]int{}
	for _, m := range msgs {
		perTurn[m.TurnID]++
	}
	if len(turns) < committed {
		t.Fatalf("%d turns in the file, but the child reported %d committed", len(turns), committed)
	}
	for _, turn := range turns[:committed] {
		if turn.Status != TurnDone || perTurn[turn.ID] != 2 || turn.Prompt != fmt.Sprintf("prompt %d", turn.Seq) {
			t.Errorf("committed turn %d: status %s, %d messages, prompt %q", turn.Seq, turn.Status, perTurn[turn.ID], turn.Prompt)
		}
	}
	for _, turn := range turns[committed:] {
		if turn.Status != TurnDone && turn.Status != TurnInterrupted {
			t.Errorf("turn in flight %d: status %s", turn.Seq, turn.Status)
		}
	}
	if hits, err := s.In("").Search(ctx, "crash", fmt.Sprintf("answer%d", committed), 5); err != nil || len(hits) != 1 {
		t.Errorf("search for the last committed answer = %+v, %v", hits, err)
	}
	t.Logf("child killed after %d committed turns; %d in the file, %d marked interrupted", committed, len(turns), n)
}

func crashChild(path string) {
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := s.CreateSession(ctx, Session{ID: "crash"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// A parent that died without killing us must not leave us running.
	deadline := time.Now().Add(time.Minute)
	pad := strings.Repeat("padding so that pages fill and split. ", 40)
	for i := 1; time.Now().Before(deadline); i++ {
		turn, err := s.StartTurn(ctx, "crash", fmt.Sprintf("prompt %d", i), 0)
		if err == nil {
			_, err = s.AppendMessage(ctx, "crash", turn.ID, 0, llm.UserText(fmt.Sprintf("question%d %s", i, pad)))
		}
		if err == nil {
			_, err = s.AppendMessage(ctx, "crash", turn.ID, 0, llm.AssistantText(fmt.Sprintf("answer%d %s", i, pad)))
		}
		if err == nil {
			_, err = s.RecordToolCall(ctx, ToolCall{SessionID: "crash", TurnID: turn.ID, Name: "shell_exec", Output: pad})
		}
		if err == nil {
			turn.Status = TurnDone
			err = s.FinishTurn(ctx, turn)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Printf("committed %d\n", i)
	}
	os.Exit(3)
}

package cli

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/godwit/godwit/internal/policy"
)

func TestParseAnswer(t *testing.T) {
	tests := []struct {
		in     string
		always bool
		want   policy.Answer
		ok     bool
	}{
		{"y\n", true, policy.Answer{Choice: policy.Yes}, true},
		{"YES", false, policy.Answer{Choice: policy.Yes}, true},
		{"n use make instead\n", true, policy.Answer{Choice: policy.No, Note: "use make instead"}, true},
		{"a", true, policy.Answer{Choice: policy.Always}, true},
		{"a", false, policy.Answer{}, false},
		{"maybe", true, policy.Answer{}, false},
	}
	for _, tt := range tests {
		got, ok := parseAnswer(tt.in, tt.always)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseAnswer(%q) = %+v %v", tt.in, got, ok)
		}
	}
}

// askedWriter collects what a prompter writes and signals each prompt.
type askedWriter struct {
	mu    sync.Mutex
	out   strings.Builder
	asked chan struct{}
}

func (w *askedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if strings.Contains(string(b), "Allow?") {
		select {
		case w.asked <- struct{}{}:
		default:
		}
	}
	return w.out.Write(b)
}

func (w *askedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.String()
}

func TestTerminalPrompter(t *testing.T) {
	inR, inW := io.Pipe()
	w := &askedWriter{asked: make(chan struct{}, 1)}
	lp := newTerminalPrompter(inR, w)
	q := policy.Question{Tool: "shell_exec", Summary: "run: rm x", Reasons: []string{"runs `rm x`"}, Always: []string{"shell_exec command rm *"}}
	go func() {
		<-w.asked // answer only what was asked
		inW.Write([]byte("what?\n"))
		inW.Write([]byte("a\n"))
	}()
	a, err := lp.Ask(context.Background(), q)
	if err != nil || a.Choice != policy.Always {
		t.Fatalf("got %+v %v", a, err)
	}
	for _, want := range []string{"shell_exec wants to run: rm x", "· runs `rm x`", "[a]lways allows for this session: shell_exec command rm *", "Answer y (yes)"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("prompt lacks %q:\n%s", want, w.String())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lp.Ask(ctx, q); err == nil {
		t.Error("a cancelled question must fail")
	}
	inW.Close()
	if a, err := lp.Ask(context.Background(), q); err != nil || a.Choice != policy.No {
		t.Errorf("closed input: %+v %v", a, err)
	}
}

// TestStrayLinesDoNotAnswer: where every line is an answer, a "y"
// typed while nothing was asked must not answer the next question.
func TestStrayLinesDoNotAnswer(t *testing.T) {
	lines := make(chan string, 2)
	lines <- "y"
	lines <- "yes"
	w := &askedWriter{asked: make(chan struct{}, 1)}
	lp := &linePrompter{lines: func() <-chan string { return lines }, out: w, answersOnly: true}
	go func() {
		<-w.asked
		lines <- "n not that"
	}()
	if a, err := lp.Ask(context.Background(), policy.Question{Tool: "shell_exec", Summary: "run: rm x"}); err != nil || a.Choice != policy.No || a.Note != "not that" {
		t.Errorf("a stray line answered: %+v %v", a, err)
	}
}

// TestChatPrompterKeepsMessages: in the chat, lines that come while no
// question is pending are messages, never drained.
func TestChatPrompterKeepsMessages(t *testing.T) {
	lines := make(chan string, 2)
	lines <- "y"
	lp := &linePrompter{lines: func() <-chan string { return lines }, out: io.Discard}
	a, err := lp.Ask(context.Background(), policy.Question{Tool: "file_write", Summary: "write a.go"})
	if err != nil || a.Choice != policy.Yes {
		t.Errorf("got %+v %v, want the pending line as the answer", a, err)
	}
	close(lines)
	if a, _ := lp.Ask(context.Background(), policy.Question{Tool: "file_write", Summary: "write a.go"}); a.Choice != policy.No || a.Note != "no answer: the input ended" {
		t.Errorf("ended input: %+v", a)
	}
}

package cli

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

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
		{"yes please, and then run the tests", true, policy.Answer{}, false},
		{"always do that", true, policy.Answer{}, false},
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
	lp.quiet = 0 // TestAnswerTiming has the clock
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

// TestAnswerTiming: which lines answer a question, by when they were
// typed: before it was written (a message typed while the turn ran, or a
// stray key), as it came (too soon to have read it), or after.
func TestAnswerTiming(t *testing.T) {
	before, soon, later := -time.Hour, time.Duration(0), time.Hour
	q := policy.Question{Tool: "shell_exec", Summary: "run: rm x", Always: []string{"shell_exec command rm *"}}
	tests := []struct {
		name   string
		mode   string // run: answers only; tty: the chat on a terminal; pipe: the chat on a pipe
		lines  []string
		typed  []time.Duration // when each line was typed, from the question
		want   policy.Answer
		kept   []string // passed back to the chat as messages
		output string
	}{
		{"run: typed ahead is dropped", "run", []string{"y", "n not that"}, []time.Duration{before, later}, policy.Answer{Choice: policy.No, Note: "not that"}, nil, ""},
		{"run: a yes as the question comes asks again", "run", []string{"y", "n"}, []time.Duration{soon, later}, policy.Answer{Choice: policy.No}, nil, "read it, then answer"},
		{"run: a no counts at once", "run", []string{"n"}, []time.Duration{soon}, policy.Answer{Choice: policy.No}, nil, ""},
		{"chat tty: a message typed during the turn is kept", "tty", []string{"yes please, then fix the tests", "y"}, []time.Duration{before, later}, policy.Answer{Choice: policy.Yes}, []string{"yes please, then fix the tests"}, "kept as your next message"},
		{"chat tty: a y typed ahead is a message, not the answer", "tty", []string{"y", "a"}, []time.Duration{before, later}, policy.Answer{Choice: policy.Always}, []string{"y"}, ""},
		{"chat tty: too soon asks again", "tty", []string{"a", "y"}, []time.Duration{soon, later}, policy.Answer{Choice: policy.Yes}, nil, "read it, then answer"},
		{"chat pipe: lines answer in order", "pipe", []string{"y"}, []time.Duration{before}, policy.Answer{Choice: policy.Yes}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := make(chan line, len(tt.lines))
			w := &askedWriter{asked: make(chan struct{}, 1)}
			var kept []string
			lp := &linePrompter{lines: func() <-chan line { return lines }, out: w}
			switch tt.mode {
			case "run":
				lp.answersOnly, lp.quiet = true, policy.AnswerDelay
			case "tty":
				lp.typedAhead, lp.quiet = func(s string) { kept = append(kept, s) }, policy.AnswerDelay
			}
			var early []int
			for i, d := range tt.typed {
				if d < 0 {
					lines <- line{tt.lines[i], time.Now().Add(d)}
				} else {
					early = append(early, i)
				}
			}
			go func() {
				<-w.asked
				for _, i := range early {
					lines <- line{tt.lines[i], time.Now().Add(tt.typed[i])}
				}
			}()
			a, err := lp.Ask(context.Background(), q)
			if err != nil || a != tt.want {
				t.Errorf("answer %+v %v, want %+v", a, err, tt.want)
			}
			if strings.Join(kept, "|") != strings.Join(tt.kept, "|") {
				t.Errorf("kept %q, want %q", kept, tt.kept)
			}
			if !strings.Contains(w.String(), tt.output) {
				t.Errorf("the prompter wrote:\n%s\nwant %q in it", w.String(), tt.output)
			}
		})
	}
}

// TestReadOnlyOfferInLines: the line-mode chat on a terminal asks about a
// call read-only mode refuses: s switches to ask mode and allows it, y
// allows it once, a (no always is offered) asks again.
func TestReadOnlyOfferInLines(t *testing.T) {
	q := policy.Question{Tool: "file_write", Summary: "write notes.md", ReadOnly: true, Reasons: []string{"read-only mode: this call writes notes.md"}}
	for _, tt := range []struct {
		lines    []string
		switched bool
	}{
		{[]string{"a", "s"}, true},
		{[]string{"y"}, false},
	} {
		lines := make(chan line, len(tt.lines))
		w := &askedWriter{asked: make(chan struct{}, 1)}
		switched := false
		lp := &linePrompter{lines: func() <-chan line { return lines }, out: w, toAsk: func() { switched = true }}
		for _, l := range tt.lines {
			lines <- line{l, time.Now().Add(time.Hour)}
		}
		a, err := lp.Ask(context.Background(), q)
		if err != nil || a.Choice != policy.Yes || switched != tt.switched {
			t.Errorf("%q: %+v %v, switched %v", tt.lines, a, err, switched)
		}
		if out := w.String(); !strings.Contains(out, "Read-only mode: allow it once? [y]es / [s]witch to ask mode and allow / [n]o") {
			t.Errorf("the question is:\n%s", out)
		}
	}
}

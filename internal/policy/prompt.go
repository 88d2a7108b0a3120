package policy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Question is what a person is asked before a call runs.
type Question struct {
	Tool string
	// Summary is the call in one line ("write main.go", "run: go test").
	Summary string
	// Preview is the detail to show: the diff of an edit, the start of a
	// written file, the full command.
	Preview string
	// Reasons say why approval is needed, one line each ("runs rm -rf
	// build", "writes /etc/hosts, outside the workspace").
	Reasons []string
	// Always describes what answering Always allows for the rest of the
	// session ("shell_exec command rm *"); empty when Always is not
	// offered.
	Always []string
}

// Choice is a person's answer.
type Choice int

const (
	No     Choice = iota // deny this call
	Yes                  // approve this call
	Always               // approve this call and the same scope for the session
)

// Answer is a Choice with an optional note the model reads when the
// answer is No ("use the staging database instead").
type Answer struct {
	Choice Choice
	Note   string
}

// Prompter asks a person. The TUI, ACP and tests implement it. Ask may
// block until the person answers and must honour ctx. The Policy asks one
// question at a time.
type Prompter interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// PrompterFunc adapts a function to Prompter.
type PrompterFunc func(ctx context.Context, q Question) (Answer, error)

func (f PrompterFunc) Ask(ctx context.Context, q Question) (Answer, error) { return f(ctx, q) }

// LinePrompter asks on a line-based terminal: it writes the question to
// Out and reads y, n or a from In (anything after "n " is the note).
// It starts reading In at its first question; from then on, lines typed
// while no question is pending are discarded, so a stray "y" never
// approves a command the person has not seen.
type LinePrompter struct {
	in  io.Reader
	out io.Writer

	once  sync.Once
	lines chan lineResult
}

type lineResult struct {
	s   string
	err error
}

// NewLinePrompter returns a prompter over in and out.
func NewLinePrompter(in io.Reader, out io.Writer) *LinePrompter {
	return &LinePrompter{in: in, out: out, lines: make(chan lineResult)}
}

// reader runs for the life of the prompter: a blocked terminal read
// cannot be cancelled, so one goroutine owns it and questions take lines
// from it.
func (lp *LinePrompter) reader() {
	r := bufio.NewReader(lp.in)
	for {
		s, err := r.ReadString('\n')
		lp.lines <- lineResult{s, err}
		if err != nil {
			close(lp.lines)
			return
		}
	}
}

// Ask implements Prompter.
func (lp *LinePrompter) Ask(ctx context.Context, q Question) (Answer, error) {
	lp.once.Do(func() { go lp.reader() })
	for drained := false; !drained; {
		select {
		case _, ok := <-lp.lines:
			if !ok {
				return Answer{Choice: No, Note: "no terminal to ask on"}, nil
			}
		default:
			drained = true
		}
	}
	fmt.Fprint(lp.out, FormatQuestion(q))
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(lp.out)
			return Answer{}, ctx.Err()
		case l, ok := <-lp.lines:
			if !ok || (l.err != nil && l.s == "") {
				fmt.Fprintln(lp.out)
				return Answer{Choice: No, Note: "no answer on the terminal"}, nil
			}
			if a, ok := ParseAnswer(l.s, len(q.Always) > 0); ok {
				return a, nil
			}
			fmt.Fprint(lp.out, "Answer y (yes), n (no; a note may follow) or a (always): ")
		}
	}
}

// FormatQuestion renders q for a terminal, ending with the prompt.
func FormatQuestion(q Question) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s wants to %s\n", q.Tool, q.Summary)
	if q.Preview != "" {
		b.WriteString(strings.TrimRight(q.Preview, "\n"))
		b.WriteByte('\n')
	}
	for _, r := range q.Reasons {
		fmt.Fprintf(&b, "  · %s\n", r)
	}
	if len(q.Always) > 0 {
		fmt.Fprintf(&b, "  [a]lways allows for this session: %s\n", strings.Join(q.Always, "; "))
		b.WriteString("Allow? [y]es / [n]o / [a]lways: ")
	} else {
		b.WriteString("Allow? [y]es / [n]o: ")
	}
	return b.String()
}

// ParseAnswer reads a typed answer: y/yes, n/no (with an optional note),
// a/always when offered.
func ParseAnswer(s string, always bool) (Answer, bool) {
	s = strings.TrimSpace(s)
	word, note, _ := strings.Cut(s, " ")
	switch strings.ToLower(word) {
	case "y", "yes":
		return Answer{Choice: Yes}, true
	case "n", "no":
		return Answer{Choice: No, Note: strings.TrimSpace(note)}, true
	case "a", "always":
		if always {
			return Answer{Choice: Always}, true
		}
	}
	return Answer{}, false
}

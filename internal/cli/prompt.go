package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/termsafe"
)

// linePrompter asks the policy's questions in line mode: it writes the
// question to out and takes the answer from the next input line (y, n
// or a; anything after "n " is the note the model reads). `godwit run`
// asks on its terminal, the line-mode chat in the stream of its
// messages.
type linePrompter struct {
	lines func() <-chan string // the input, started at the first question
	out   io.Writer
	// answersOnly is set where every input line is an answer (run):
	// lines typed while no question was pending are discarded, so a
	// stray "y" never approves a command the person has not seen. In the
	// chat such lines are messages, and the chat loop takes them.
	answersOnly bool
}

// newTerminalPrompter asks on in, a terminal, reading it only from the
// first question on: a run that asks nothing leaves what was typed
// ahead to the shell. A blocked terminal read cannot be cancelled, so
// one goroutine owns in for the life of the process.
func newTerminalPrompter(in io.Reader, out io.Writer) *linePrompter {
	return &linePrompter{
		lines:       sync.OnceValue(func() <-chan string { return readLines(context.Background(), in) }),
		out:         out,
		answersOnly: true,
	}
}

// Ask implements policy.Prompter.
func (p *linePrompter) Ask(ctx context.Context, q policy.Question) (policy.Answer, error) {
	lines := p.lines()
	if p.answersOnly {
		drain(lines)
	}
	fmt.Fprint(p.out, formatQuestion(q))
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(p.out)
			return policy.Answer{}, ctx.Err()
		case l, ok := <-lines:
			if !ok {
				fmt.Fprintln(p.out)
				return policy.Answer{Choice: policy.No, Note: "no answer: the input ended"}, nil
			}
			if a, ok := parseAnswer(l, len(q.Always) > 0); ok {
				return a, nil
			}
			fmt.Fprint(p.out, "Answer y (yes), n (no; a note may follow) or a (always): ")
		}
	}
}

// drain discards the lines typed before the question.
func drain(lines <-chan string) {
	for {
		select {
		case _, ok := <-lines:
			if !ok {
				return
			}
		default:
			return
		}
	}
}

// formatQuestion renders q for a terminal, ending with the prompt. The
// call is written with termsafe.Exact, as the chat writes it: a control,
// an escape or a bidi override in a command or a file name shows as a
// mark, so the person reads every character that will run and nothing in
// it can draw over the question.
func formatQuestion(q policy.Question) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s wants to %s\n", termsafe.ExactLine(q.Tool), termsafe.ExactLine(q.Summary))
	if q.Preview != "" {
		b.WriteString(termsafe.Exact(strings.TrimRight(q.Preview, "\n")))
		b.WriteByte('\n')
	}
	for _, r := range q.Reasons {
		fmt.Fprintf(&b, "  · %s\n", termsafe.ExactLine(r))
	}
	if len(q.Always) > 0 {
		fmt.Fprintf(&b, "  [a]lways allows for this session: %s\n", termsafe.ExactLine(strings.Join(q.Always, "; ")))
		b.WriteString("Allow? [y]es / [n]o / [a]lways: ")
	} else {
		b.WriteString("Allow? [y]es / [n]o: ")
	}
	return b.String()
}

// parseAnswer reads a typed answer: y/yes, n/no (with an optional note),
// a/always when offered.
func parseAnswer(s string, always bool) (policy.Answer, bool) {
	s = strings.TrimSpace(s)
	word, note, _ := strings.Cut(s, " ")
	switch strings.ToLower(word) {
	case "y", "yes":
		return policy.Answer{Choice: policy.Yes}, true
	case "n", "no":
		return policy.Answer{Choice: policy.No, Note: strings.TrimSpace(note)}, true
	case "a", "always":
		if always {
			return policy.Answer{Choice: policy.Always}, true
		}
	}
	return policy.Answer{}, false
}

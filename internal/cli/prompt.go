package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/internal/termsafe"
)

// linePrompter asks the policy's questions in line mode: the question on
// out, the answer from the next input line (y, n or a; anything after
// "n " is the note the model reads).
type linePrompter struct {
	lines func() <-chan line // the input, started at the first question
	out   io.Writer
	// answersOnly is set where every input line is an answer (run):
	// lines typed before the question was written are discarded, so a
	// stray "y" never approves a command the person has not seen. In the
	// chat such lines are messages, and the chat loop takes them.
	answersOnly bool
	// typedAhead, set in the chat on a terminal, takes back the lines
	// typed before the question was written, as messages for after the
	// turn, never answers. Without it (a pipe) lines answer in order.
	typedAhead func(string)
	// quiet is how long a question stands on a terminal before a yes
	// counts, as in the full-screen chat: an answer sooner was typed
	// before the person could read what it approves.
	quiet time.Duration
	// toAsk, set in the chat on a terminal, switches the chat to ask
	// mode: "s" answers a call read-only mode refuses (Question.ReadOnly)
	// with it, and allows the call.
	toAsk func()
}

// line is one input line and when it was read.
type line struct {
	text string
	at   time.Time
}

// newTerminalPrompter asks on in, a terminal, reading it only from the
// first question on: a run that asks nothing leaves what was typed
// ahead to the shell. A blocked terminal read cannot be cancelled, so
// one goroutine owns in for the life of the process.
func newTerminalPrompter(in io.Reader, out io.Writer) *linePrompter {
	return &linePrompter{
		lines:       sync.OnceValue(func() <-chan line { return readLines(context.Background(), in) }),
		out:         out,
		answersOnly: true,
		quiet:       policy.AnswerDelay,
	}
}

// Ask implements policy.Prompter.
func (p *linePrompter) Ask(ctx context.Context, q policy.Question) (policy.Answer, error) {
	lines := p.lines()
	prompt := formatQuestion(q)
	asked := time.Now()
	fmt.Fprint(p.out, prompt)
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
			early := l.at.Before(asked)
			switch {
			case early && p.answersOnly:
				continue
			case early && p.typedAhead != nil:
				p.typedAhead(l.text)
				fmt.Fprintf(p.out, "\n(typed before this question: kept as your next message: %s)%s", termsafe.ExactLine(firstLine(l.text, 60)), prompt[strings.LastIndexByte(prompt, '\n')+1:])
				continue
			}
			a, ok := parseAnswer(l.text, len(q.Always) > 0)
			switchAsk := false
			if w := strings.ToLower(strings.TrimSpace(l.text)); q.ReadOnly && p.toAsk != nil && (w == "s" || w == "switch") {
				a, ok, switchAsk = policy.Answer{Choice: policy.Yes}, true, true
			}
			if ok && a.Choice != policy.No && p.quiet > 0 && l.at.Sub(asked) < p.quiet {
				fmt.Fprint(p.out, "That came as the question did: read it, then answer y, n or a: ")
				continue
			}
			if ok {
				if switchAsk {
					p.toAsk()
				}
				return a, nil
			}
			if q.ReadOnly {
				fmt.Fprint(p.out, "Answer y (once), s (switch to ask mode) or n (no; a note may follow): ")
				continue
			}
			fmt.Fprint(p.out, "Answer y (yes), n (no; a note may follow) or a (always): ")
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
	switch {
	case q.ReadOnly:
		b.WriteString("Read-only mode: allow it once? [y]es / [s]witch to ask mode and allow / [n]o: ")
	case len(q.Always) > 0:
		fmt.Fprintf(&b, "  [a]lways allows for this session: %s\n", termsafe.ExactLine(strings.Join(q.Always, "; ")))
		b.WriteString("Allow? [y]es / [n]o / [a]lways: ")
	default:
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
	case "n", "no":
		return policy.Answer{Choice: policy.No, Note: strings.TrimSpace(note)}, true
	}
	// A yes is the whole line: "yes, but first..." is not one.
	switch strings.ToLower(s) {
	case "y", "yes":
		return policy.Answer{Choice: policy.Yes}, true
	case "a", "always":
		if always {
			return policy.Answer{Choice: policy.Always}, true
		}
	}
	return policy.Answer{}, false
}

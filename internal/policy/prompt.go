package policy

import (
	"context"
	"time"
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
	// ReadOnly marks a call read-only mode refuses, offered to the person
	// (Options.Offer): Yes allows it once; a front end may also switch
	// the session to ask mode and answer Yes. Always is not offered.
	ReadOnly bool
}

// Choice is a person's answer.
type Choice int

const (
	No     Choice = iota // deny this call
	Yes                  // approve this call
	Always               // approve this call and the same scope for the session
	Never                // deny this call and the same scope for the session, in every mode
)

// Answer is a Choice with an optional note the model reads when the
// answer is No ("use the staging database instead").
type Answer struct {
	Choice Choice
	Note   string
}

// Prompter asks a person. The front ends implement it (the CLI's line
// mode, the chat UI, ACP), and tests; policy itself owns no terminal. Ask may
// block until the person answers and must honour ctx. The Policy asks one
// question at a time.
type Prompter interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// AnswerDelay is how long a question must have been shown before a yes
// answers it, in every front end that reads keys or lines: a yes typed
// sooner was meant for something else. A no counts at once.
const AnswerDelay = 500 * time.Millisecond

// PrompterFunc adapts a function to Prompter.
type PrompterFunc func(ctx context.Context, q Question) (Answer, error)

func (f PrompterFunc) Ask(ctx context.Context, q Question) (Answer, error) { return f(ctx, q) }

package tool

import (
	"context"
	"encoding/json"
)

// ApprovalRequest is what an Approver is asked about.
type ApprovalRequest struct {
	CallID string
	Tool   string
	Args   json.RawMessage
	Access Access
}

// Decision is an Approver's answer.
type Decision struct {
	Allow bool
	// Manual is true when a person decided this call just now (not a
	// rule or a mode); the runner tells the model when they approved it.
	Manual bool
	// Reason explains a denial to the model ("read-only mode: start godwit
	// with --allow-write"), or names the rule that decided.
	Reason string
	// Confine is how tightly the sandbox must hold the call once
	// allowed. The runner puts it in the call's context (WithConfinement)
	// and the tool that starts processes (shell_exec) enforces it, so a
	// command allowed only because it reads cannot write or reach the
	// network, whatever the session's mode.
	Confine Confinement
}

// Confinement is what the sandbox must enforce for one allowed call.
type Confinement uint8

const (
	// ConfineSession runs the call in the session's sandbox: what the
	// mode allows (writes to the workspace and TMPDIR in ask and auto).
	ConfineSession Confinement = iota
	// ConfineReadOnly runs the call with no write access and no network,
	// in every mode: the approver allowed it because it only reads.
	ConfineReadOnly
	// ConfineWrite runs the call in the sandbox of a mode that writes
	// (ask's), whatever the session's mode: a person allowed it on the
	// spot though the session is read-only.
	ConfineWrite
)

func (c Confinement) String() string {
	switch c {
	case ConfineReadOnly:
		return "read-only"
	case ConfineWrite:
		return "write"
	}
	return "session"
}

type confinementKey struct{}

// WithConfinement returns ctx carrying c for the call it runs.
func WithConfinement(ctx context.Context, c Confinement) context.Context {
	return context.WithValue(ctx, confinementKey{}, c)
}

// ConfinementFrom returns the confinement the runner put in ctx;
// ConfineSession when there is none.
func ConfinementFrom(ctx context.Context) Confinement {
	c, _ := ctx.Value(confinementKey{}).(Confinement)
	return c
}

// Approver decides whether a mutating call may run. Implementations may
// block (a person answering a prompt) and must honour ctx.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Decision, error)
}

// ReadScreener is an Approver that must also see some calls that do not
// mutate: reads of secrets (.env, keys) or of paths outside the workspace.
// The runner asks such an approver about a read call when NeedsApproval
// says so.
type ReadScreener interface {
	NeedsApproval(tool string, a Access) bool
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (Decision, error)

func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) (Decision, error) {
	return f(ctx, req)
}

// AllowAll approves every call (--yes).
type AllowAll struct{}

func (AllowAll) Approve(context.Context, ApprovalRequest) (Decision, error) {
	return Decision{Allow: true, Reason: "--yes"}, nil
}

// ManualApprovalNote ends the result of a call a person approved by hand,
// so the model need not guess what happened.
const ManualApprovalNote = "[approved by the user before it ran]"

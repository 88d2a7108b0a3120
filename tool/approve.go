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
	// Manual is true when a person approved this call just now (not a rule
	// or a mode); the runner then tells the model so.
	Manual bool
	// Reason explains a denial to the model ("read-only mode: start godwit
	// with --allow-write"), or names the rule that decided.
	Reason string
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

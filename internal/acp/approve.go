package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/godwit/godwit/internal/policy"
	"github.com/godwit/godwit/tool"
)

// Permission option ids: the option kinds themselves.
const (
	optAllowOnce    = sdk.PermissionOptionId(sdk.PermissionOptionKindAllowOnce)
	optAllowAlways  = sdk.PermissionOptionId(sdk.PermissionOptionKindAllowAlways)
	optRejectOnce   = sdk.PermissionOptionId(sdk.PermissionOptionKindRejectOnce)
	optRejectAlways = sdk.PermissionOptionId(sdk.PermissionOptionKindRejectAlways)
)

// The policy's advice on a read-only refusal names godwit's flags
// (policy.RestartAdvice); in an editor the user switches the session's
// mode instead.
const modeAdvice = "The user can switch this session to Ask mode to approve writes and commands one by one, or to Auto mode to approve them all"

// gate sits in front of the session's policy (EngineRequest.Gate): it
// shows each call to the editor as a pending tool_call, then lets the
// policy decide. The policy asks the editor through the session's Ask
// only where it would ask a person.
type gate struct {
	s    *session
	next tool.Approver
}

func (s *session) gate(next tool.Approver) tool.Approver { return gate{s, next} }

// Approve implements tool.Approver.
func (g gate) Approve(ctx context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
	c := g.s.announce(req.CallID, req.Tool, req.Args, req.Access.Summary, sdk.ToolCallStatusPending)
	d, err := g.next.Approve(context.WithValue(ctx, callKey{}, c), req)
	if !d.Allow {
		d.Reason = strings.ReplaceAll(d.Reason, policy.RestartAdvice, modeAdvice)
	}
	return d, err
}

// NeedsApproval implements tool.ReadScreener with the policy's secrets
// screen.
func (g gate) NeedsApproval(toolName string, a tool.Access) bool {
	rs, ok := g.next.(tool.ReadScreener)
	return ok && rs.NeedsApproval(toolName, a)
}

// callKey carries the call being approved from the gate to Ask.
type callKey struct{}

// Ask implements policy.Prompter with session/request_permission: the
// editor's user answers for the call the gate showed. Always is offered
// when the policy offers it, for the scope it names, and so is "always
// reject": the policy remembers it in every mode.
func (s *session) Ask(ctx context.Context, q policy.Question) (policy.Answer, error) {
	c, _ := ctx.Value(callKey{}).(*call)
	if c == nil { // a question the gate did not route: show it anyway
		s.mu.Lock()
		s.asks++
		id := fmt.Sprintf("ask-%d", s.asks)
		s.mu.Unlock()
		c = s.announce(id, q.Tool, nil, q.Summary, sdk.ToolCallStatusPending)
	}
	scope := strings.Join(q.Always, "; ")
	options := []sdk.PermissionOption{{OptionId: optAllowOnce, Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow"}}
	if scope != "" {
		options = append(options, sdk.PermissionOption{OptionId: optAllowAlways, Kind: sdk.PermissionOptionKindAllowAlways, Name: "Always allow " + scope})
	}
	options = append(options, sdk.PermissionOption{OptionId: optRejectOnce, Kind: sdk.PermissionOptionKindRejectOnce, Name: "Reject"})
	if scope != "" {
		options = append(options, sdk.PermissionOption{OptionId: optRejectAlways, Kind: sdk.PermissionOptionKindRejectAlways, Name: "Always reject " + scope})
	}
	s.mu.Lock()
	view := c.permissionView(q.Reasons)
	s.mu.Unlock()
	resp, err := s.srv.client().RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(s.id), ToolCall: view, Options: options})
	switch {
	case ctx.Err() != nil:
		return policy.Answer{}, ctx.Err()
	case err != nil:
		// Not the model's fault and not worth ending the turn over.
		s.srv.log.Warn("acp: session/request_permission failed", "session", s.id, "err", err)
		return policy.Answer{Choice: policy.No, Note: "the editor did not answer the permission request (" + err.Error() + ")"}, nil
	case resp.Outcome.Selected == nil:
		return policy.Answer{Choice: policy.No, Note: "the user cancelled the prompt"}, nil
	}
	switch id := resp.Outcome.Selected.OptionId; {
	case id == optAllowOnce:
		return policy.Answer{Choice: policy.Yes}, nil
	case id == optAllowAlways && scope != "":
		return policy.Answer{Choice: policy.Always}, nil
	case id == optRejectOnce:
		return policy.Answer{Choice: policy.No}, nil
	case id == optRejectAlways && scope != "":
		return policy.Answer{Choice: policy.Never}, nil
	default:
		return policy.Answer{Choice: policy.No, Note: "the editor answered with an option it was not offered: " + string(id)}, nil
	}
}

package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/godwit/godwit/tool"
	"github.com/godwit/godwit/tool/shell"
)

// Permission option ids: the option kinds themselves.
const (
	optAllowOnce    = sdk.PermissionOptionId(sdk.PermissionOptionKindAllowOnce)
	optAllowAlways  = sdk.PermissionOptionId(sdk.PermissionOptionKindAllowAlways)
	optRejectOnce   = sdk.PermissionOptionId(sdk.PermissionOptionKindRejectOnce)
	optRejectAlways = sdk.PermissionOptionId(sdk.PermissionOptionKindRejectAlways)
)

// Approve implements tool.Approver. It first shows the call (a pending
// tool_call with its diff or command), then decides by the session's
// mode; in ask mode an "always" answer is remembered per tool, and per
// command for shell_exec.
func (s *session) Approve(ctx context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
	c := s.announce(req.CallID, req.Tool, req.Args, req.Access.Summary, sdk.ToolCallStatusPending)
	switch s.currentMode() {
	case ModeReadOnly:
		return tool.Decision{Reason: "read-only mode: the user can switch the session to Ask or Auto mode to allow writes and commands"}, nil
	case ModeAuto:
		return tool.Decision{Allow: true, Reason: "auto mode"}, nil
	}
	key, what := ruleKey(req)
	s.mu.Lock()
	allow, known := s.remembered[key]
	s.mu.Unlock()
	if known {
		if allow {
			return tool.Decision{Allow: true, Reason: "the user allowed " + what + " for this session"}, nil
		}
		return tool.Decision{Reason: "the user rejected " + what + " for this session"}, nil
	}

	resp, err := s.srv.client().RequestPermission(ctx, sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(s.id),
		ToolCall:  c.permissionView(),
		Options: []sdk.PermissionOption{
			{OptionId: optAllowOnce, Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow"},
			{OptionId: optAllowAlways, Kind: sdk.PermissionOptionKindAllowAlways, Name: "Always allow " + what},
			{OptionId: optRejectOnce, Kind: sdk.PermissionOptionKindRejectOnce, Name: "Reject"},
			{OptionId: optRejectAlways, Kind: sdk.PermissionOptionKindRejectAlways, Name: "Always reject " + what},
		},
	})
	switch {
	case ctx.Err() != nil:
		return tool.Decision{}, ctx.Err()
	case err != nil:
		// Not the model's fault and not worth ending the turn over.
		s.srv.log.Warn("acp: session/request_permission failed", "session", s.id, "err", err)
		return tool.Decision{Reason: "the editor did not answer the permission request (" + err.Error() + ")"}, nil
	case resp.Outcome.Selected == nil:
		return tool.Decision{Reason: "the user cancelled the prompt"}, nil
	}
	switch resp.Outcome.Selected.OptionId {
	case optAllowAlways:
		s.remember(key, true)
		fallthrough
	case optAllowOnce:
		return tool.Decision{Allow: true, Manual: true}, nil
	case optRejectAlways:
		s.remember(key, false)
		return tool.Decision{Reason: "the user rejected " + what + " and asked not to be asked again this session"}, nil
	case optRejectOnce:
		return tool.Decision{Reason: "the user rejected this call"}, nil
	}
	return tool.Decision{Reason: "the editor answered with an unknown option " + string(resp.Outcome.Selected.OptionId)}, nil
}

func (s *session) remember(key string, allow bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.remembered[key] = allow
}

// ruleKey is what an "always" answer covers, and how to name it: one
// exact command for shell_exec (allowing `go test` must not allow
// `rm -rf`), the tool otherwise.
func ruleKey(req tool.ApprovalRequest) (key, what string) {
	if req.Tool == shell.Name && req.Access.Command != "" {
		return req.Tool + "\x00" + req.Access.Command, "this command"
	}
	return req.Tool, req.Tool
}

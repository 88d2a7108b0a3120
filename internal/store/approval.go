package store

import (
	"context"
	"fmt"
	"time"
)

// Approval is one decision on a call that needed approval.
type Approval struct {
	SessionID string
	TurnID    int64
	CallID    string
	Tool      string
	// Subject is what was decided on: the command, or the path.
	Subject string
	// Decision is "allow" or "deny".
	Decision string
	// Source is who decided: "user" (a person, just now) or "policy" (a
	// mode, a rule or a remembered answer).
	Source string
	// Rule is the reason the approver gave.
	Rule string
	At   time.Time
}

// RecordApproval stores a decision and returns its id.
func (s *Store) RecordApproval(ctx context.Context, a Approval) (int64, error) {
	if a.Decision != "allow" && a.Decision != "deny" {
		return 0, fmt.Errorf("store: record approval: decision %q; use \"allow\" or \"deny\"", a.Decision)
	}
	return s.insert(ctx, "record approval", qRecordApproval, a.SessionID, null(a.TurnID), a.CallID, a.Tool,
		a.Subject, a.Decision, a.Source, a.Rule, s.stamp(a.At).UnixMilli())
}

package store

import (
	"context"
	"database/sql"
	"errors"
)

// Scope is the store as the sessions of one workspace see it: what they
// saw (pages, handoffs, messages, Decisions, project memory) is found
// only among the sessions recorded in that workspace, and the user's own
// memory entries. The limit is part of every statement a Scope runs, so
// a tool given a Scope cannot reach another workspace's record by any
// id, offset or keyword; the model's tools get a Scope, never the Store.
// Reading another workspace's record is the user's act: `godwit -C DIR`,
// `inspect trace ID`.
type Scope struct {
	s         *Store
	workspace string
}

// In returns the store as the sessions of workspace (its absolute root,
// as sessions record it) see it.
func (s *Store) In(workspace string) Scope { return Scope{s: s, workspace: workspace} }

// Session returns the session whose id is exactly id, if it works in the
// workspace; another workspace's is not found.
func (sc Scope) Session(ctx context.Context, id string) (Session, error) {
	sess, err := scanRow[Session](sc.s.r.QueryRowContext(ctx, qSessionIn, id, sc.workspace))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, notFound("no session %q in %s", id, sc.workspace)
	}
	return sess, wrap("session "+id, err)
}

// Segments returns the segments of a session of the workspace, none for
// another's.
func (sc Scope) Segments(ctx context.Context, sessionID string) ([]Segment, error) {
	if _, err := sc.Session(ctx, sessionID); err != nil {
		return nil, ignoreNotFound(err)
	}
	return sc.s.Segments(ctx, sessionID)
}

// Decisions returns the Decisions ledger of a session of the workspace,
// none for another's.
func (sc Scope) Decisions(ctx context.Context, sessionID string) ([]Decision, error) {
	if _, err := sc.Session(ctx, sessionID); err != nil {
		return nil, ignoreNotFound(err)
	}
	return sc.s.Decisions(ctx, sessionID)
}

func ignoreNotFound(err error) error {
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

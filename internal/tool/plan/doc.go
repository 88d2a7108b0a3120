// Package plan provides the plan tool: the model's list of steps for
// multi-step work, each pending, in progress or done. Each call replaces
// the whole list. The session holds the *Plan, so the list survives the
// turns of a session; an OnChange hook lets the agent emit an event.
//
// This package imports only tool and llm from godwit; it must not import
// agent, store, window or anything under internal/.
package plan

// Package plan provides the plan tool: the model's list of steps for
// multi-step work, each pending, in progress or done. Each call replaces
// the whole list. The session holds the *Plan, so the list survives the
// turns of a session.
//
// Of godwit's packages it imports only llm and tool.
package plan

// Package prompt owns godwit's system prompt: the model-facing text that
// heads every request. It is product code: every word is paid for on every
// request, so the text lives in system.md, its size is pinned by a test,
// and nothing in it may vary within a session (no dates, no random ids):
// it is the start of the cached prefix.
//
// It imports none of godwit's packages.
package prompt

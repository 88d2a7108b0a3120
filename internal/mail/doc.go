// Package mail lets sessions message each other, and lets other programs
// message a session, through the store alone: no server beyond godwit.
//
// A message is a row of the store's mail table (store.Mail) with a
// receipt for every state change. Post queues one; a Box is one
// process's hold on one session (a resident: godwit serve, a chat, an
// editor's session, or a run) that claims the session's queued mail for
// its next turn, atomically, so two processes never deliver the same
// message; agent.Runtime.Run takes the claimed messages (RunInput.Mail)
// as one turn and gives each the turn's answer or error. Follow streams
// a message's receipts and Await waits for its answer; both notice when
// the process that claimed it died, and recover it (Recover): a claim
// whose turn never started is queued again, one whose turn started
// fails, since its work may be half done. Ack releases the messages a
// failure holds back (the failure barrier). Serve is the resident loop.
// Tool is send_message, the model's side.
//
// Waking up costs no server: a waiter polls SQLite's data_version on one
// pinned connection (store.Watch) every Poll, and reads the mail table
// only when another connection has committed since.
//
// Of godwit's packages it imports only internal/agent, llm, internal/store
// and tool. It writes nothing to stdout or stderr.
package mail

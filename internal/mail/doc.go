// Package mail lets sessions message each other, and other programs
// message a session, through the store alone: no server beyond godwit.
//
// A message is a row of the store's mail table with a receipt for every
// state change. Post queues one; a Box is one process's hold on one
// session (godwit serve, a chat, an editor's session, a run) that claims
// the session's mail for its next turn atomically, so two processes
// never deliver the same message. Follow and Await notice when the
// claiming process died and Recover the claim: queued again when its
// turn never started, failed when it did (its work may be half done). A
// failure holds back the sender's later messages until Ack. Serve is the
// resident loop; Tool is send_message, the model's side. Waiters poll
// SQLite's data_version (store.Watch) and read the mail table only after
// another connection committed.
//
// Of godwit's packages it imports only internal/agent, llm, internal/store
// and tool. It writes nothing to stdout or stderr.
package mail

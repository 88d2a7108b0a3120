package store

// Every SQL statement the store runs, in one place. Placeholders are
// positional (?NNN where one value is used twice). NULL columns are
// coalesced on read so that rows scan into plain Go values.

// Sessions.
const (
	qSessionCols = `id, coalesce(parent_id, ''), title, workspace, model, created_at, updated_at`

	qCreateSession = `INSERT INTO sessions (id, parent_id, title, workspace, model, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?)`

	qSessionByID = `SELECT ` + qSessionCols + ` FROM sessions WHERE id = ?`
	qSessionIn   = `SELECT ` + qSessionCols + ` FROM sessions WHERE id = ?1 AND workspace = ?2`

	// A prefix match is a scan, case-insensitive; sessions are few.
	qSessionsByPrefix = `SELECT ` + qSessionCols + ` FROM sessions
WHERE lower(substr(id, 1, length(?1))) = lower(?1) ORDER BY id LIMIT 6`

	// ?1 = '' means every workspace.
	qLastSessionIn = `SELECT ` + qSessionCols + ` FROM sessions WHERE parent_id IS NULL AND (?1 = '' OR workspace = ?1)
ORDER BY updated_at DESC, id DESC LIMIT 1`
	qSubSessions = `SELECT ` + qSessionCols + ` FROM sessions WHERE parent_id = ? ORDER BY created_at, id`

	qSetTitle = `UPDATE sessions SET title = ?, updated_at = max(updated_at, ?) WHERE id = ?`

	// Usage and cost sum the model calls, so interrupted turns and
	// handoff calls count too.
	qListSessions = `SELECT s.id, coalesce(s.parent_id, ''), s.title, s.workspace, s.model, s.created_at, s.updated_at,
	(SELECT count(*) FROM turns t WHERE t.session_id = s.id),
	coalesce(sum(m.input_tokens), 0), coalesce(sum(m.output_tokens), 0), coalesce(sum(m.reasoning_tokens), 0),
	coalesce(sum(m.cache_read_tokens), 0), coalesce(sum(m.cache_write_tokens), 0), coalesce(sum(m.cost), 0), s.updated_at,
	(SELECT count(*) FROM mail q WHERE q.target = s.id AND q.state = 'queued'),
	coalesce((SELECT r.owner FROM residents r WHERE r.session_id = s.id), ''),
	coalesce((SELECT r.command FROM residents r WHERE r.session_id = s.id), '')
FROM (SELECT * FROM sessions WHERE ?1 = '' OR workspace = ?1 ORDER BY updated_at DESC, id DESC LIMIT ?2) s
LEFT JOIN model_calls m ON m.session_id = s.id
GROUP BY s.id
ORDER BY s.updated_at DESC, s.id DESC`
)

// What a session's trace reads, in one cheap row: it changes whenever
// one of those rows is added or changed (see SessionStamp). Each part is
// one step down an index, never a scan of the session: the newest row of
// each append-only table (by the index that starts with session_id), the
// newest turn and the running ones (a turn changes only once, when it
// ends), and the few segments in full (EndSegment changes one). The
// parts are joined with dots, the texts quoted.
const qSessionStamp = `SELECT concat_ws('.', s.updated_at,
	coalesce((SELECT seq FROM turns WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1), 0),
	(SELECT count(*) FROM turns WHERE session_id = ?1 AND status = 'running'),
	(SELECT concat_ws('.', count(*), count(ended_at), coalesce(sum(ended_at), 0), coalesce(sum(tokens), 0), coalesce(sum(length(handoff)), 0))
		FROM segments WHERE session_id = ?1),
	coalesce((SELECT id FROM messages WHERE session_id = ?1 ORDER BY segment DESC, id DESC LIMIT 1), 0),
	coalesce((SELECT id FROM model_calls WHERE session_id = ?1 ORDER BY id DESC LIMIT 1), 0),
	coalesce((SELECT id FROM tool_calls WHERE session_id = ?1 ORDER BY id DESC LIMIT 1), 0),
	coalesce((SELECT id FROM events WHERE session_id = ?1 ORDER BY id DESC LIMIT 1), 0),
	coalesce((SELECT id FROM verify_runs WHERE session_id = ?1 ORDER BY id DESC LIMIT 1), 0),
	quote(s.title), quote(s.model))
FROM sessions s WHERE s.id = ?1`

// Turns and segments.
const (
	qTurnCols = `id, session_id, seq, segment, prompt, status, started_at, coalesce(ended_at, 0),
	input_tokens, output_tokens, reasoning_tokens, cache_read_tokens, cache_write_tokens, cost, error`

	qStartTurn = `INSERT INTO turns (session_id, seq, segment, prompt, status, started_at)
VALUES (?1, (SELECT coalesce(max(seq), 0) + 1 FROM turns WHERE session_id = ?1), ?2, ?3, 'running', ?4)
RETURNING ` + qTurnCols

	qFinishTurn = `UPDATE turns SET status = ?, ended_at = ?,
	input_tokens = ?, output_tokens = ?, reasoning_tokens = ?, cache_read_tokens = ?, cache_write_tokens = ?,
	cost = ?, error = ?
WHERE id = ?`

	qMarkInterrupted = `UPDATE turns SET status = 'interrupted', ended_at = ?2,
	error = CASE WHEN error = '' THEN 'the process ended before the turn finished' ELSE error END
WHERE status = 'running' AND (?1 = '' OR session_id = ?1)`

	qTurns = `SELECT ` + qTurnCols + ` FROM turns WHERE session_id = ? ORDER BY seq`

	qStartSegment = `INSERT INTO segments (session_id, seq, started_at, reason) VALUES (?, ?, ?, ?)`

	qEndSegment = `UPDATE segments SET ended_at = ?, handoff = ?, tokens = ? WHERE session_id = ? AND seq = ?`

	qSetSegmentPrefix = `UPDATE segments SET prefix = ? WHERE session_id = ? AND seq = ?`

	qSegmentPrefix = `SELECT prefix FROM segments WHERE session_id = ? AND seq = ?`

	qSegments = `SELECT session_id, seq, started_at, coalesce(ended_at, 0), reason, handoff, tokens
FROM segments WHERE session_id = ? ORDER BY seq`
)

// Messages.
const (
	qAppendMessage = `INSERT INTO messages (session_id, turn_id, segment, role, body, created_at, outputs)
VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`

	qIndexMessage = `INSERT INTO search_fts (rowid, body, session) VALUES (?1 * 4 + 2, ?2, ?3)`

	qMessageCols = `id, session_id, coalesce(turn_id, 0), segment, body, created_at, coalesce(outputs, '')`

	qLastMessage = `SELECT coalesce(max(id), 0) FROM messages WHERE session_id = ? AND segment = ?`

	qTurnHasPrompt = `SELECT EXISTS (SELECT 1 FROM messages WHERE turn_id = ? AND role = 'user')`

	qMessages = `SELECT ` + qMessageCols + ` FROM messages
WHERE session_id = ?1 AND (?2 < 0 OR segment = ?2) ORDER BY id`
)

// Model calls, tool calls, events.
const (
	qRecordModelCall = `INSERT INTO model_calls (session_id, turn_id, segment, step, provider, model,
	started_at, latency_us, ttft_us,
	input_tokens, output_tokens, reasoning_tokens, cache_read_tokens, cache_write_tokens,
	cost, stop_reason, parts, request_bytes, retries, fallback, error)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`

	qModelCalls = `SELECT id, session_id, coalesce(turn_id, 0), segment, step, provider, model,
	started_at, latency_us, ttft_us,
	input_tokens, output_tokens, reasoning_tokens, cache_read_tokens, cache_write_tokens,
	cost, stop_reason, parts, request_bytes, retries, fallback, error
FROM model_calls WHERE session_id = ? ORDER BY id`

	qRecordToolCall = `INSERT INTO tool_calls (session_id, turn_id, step, call_id, name, args, output,
	is_error, code, exit_code, started_at, duration_us, approval, changed, output_id)
VALUES (?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`

	qToolCalls = `SELECT t.id, t.session_id, coalesce(t.turn_id, 0), t.step, t.call_id, t.name, t.args, t.output,
	t.is_error, t.code, t.exit_code, t.started_at, t.duration_us, t.approval, coalesce(t.changed, ''),
	coalesce(o.size, 0), o.text, o.packed
FROM tool_calls t LEFT JOIN outputs o ON o.id = t.output_id WHERE t.session_id = ? ORDER BY t.id`

	qAppendEvent = `INSERT INTO events (session_id, turn_id, type, at, data, output_id, output_max) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`

	// What an event needs of its output: enough to splice its preview.
	qEventCols = `e.id, e.session_id, coalesce(e.turn_id, 0), e.type, e.at, e.data, '', e.output_max, coalesce(o.size, 0), o.text, o.packed`

	qEvents = `SELECT ` + qEventCols + `
FROM events e LEFT JOIN outputs o ON o.id = e.output_id WHERE e.session_id = ? ORDER BY e.id`
	// The newest "since" event is found walking events_session backwards
	// from the end: a turn's start is near it, and max() would read every
	// event of a long session each turn.
	qEventsSince = `SELECT ` + qEventCols + `
FROM events e LEFT JOIN outputs o ON o.id = e.output_id WHERE e.session_id = ?1 AND e.type = ?2
AND e.id > coalesce((SELECT id FROM events WHERE session_id = ?1 AND type = ?3 ORDER BY id DESC LIMIT 1), 0)
ORDER BY e.id`
)

// Outputs.
const (
	qOutputByHash = `SELECT id FROM outputs WHERE session_id = ? AND hash = ?`

	qPutOutput = `INSERT INTO outputs (session_id, hash, size, text, packed, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`

	// Outputs are kind 0 of the search index.
	qIndexOutput = `INSERT INTO search_fts (rowid, body, session) VALUES (?1 * 4, ?2, ?3)`

	qOutputsByID = `SELECT id, size, text, packed FROM outputs WHERE id IN (SELECT value FROM json_each(?))`
)

// Pages and search.
const (
	qPutPage = `INSERT INTO pages (session_id, segment, kind, tags, tokens, from_at, to_at, summary, text, created_at, output_id)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`

	qPage = `SELECT p.id, p.session_id, p.segment, p.kind, p.tags, p.tokens, coalesce(p.from_at, 0), coalesce(p.to_at, 0), p.summary, p.text,
	coalesce(o.size, 0), o.text, o.packed
FROM pages p LEFT JOIN outputs o ON o.id = p.output_id WHERE p.id = ?1`
	// A page of one workspace's sessions (?2).
	qPageIn = qPage + ` AND p.session_id IN (SELECT id FROM sessions WHERE workspace = ?2)`

	// rank is bm25 weighted (see the migration): negative, lower is
	// better. The session test repeats the MATCH's session filter exactly
	// (the index folds case); every hit is of a session of the workspace
	// (?4).
	qSearch = `SELECT r & 3, r >> 2, k FROM (SELECT rowid AS r, rank AS k, CASE rowid & 3
	WHEN 0 THEN (SELECT session_id FROM outputs WHERE id = search_fts.rowid >> 2)
	WHEN 1 THEN (SELECT session_id FROM pages WHERE id = search_fts.rowid >> 2)
	WHEN 2 THEN (SELECT session_id FROM messages WHERE id = search_fts.rowid >> 2)
	WHEN 3 THEN (SELECT session_id FROM segments WHERE id = search_fts.rowid >> 2) END AS sid
	FROM search_fts WHERE search_fts MATCH ?1)
WHERE (?2 = '' OR sid = ?2) AND sid IN (SELECT id FROM sessions WHERE workspace = ?4)
ORDER BY k, r LIMIT ?3`

	// What a hit shows: its session, segment and the text to cut a
	// snippet from.
	qHitPage = `SELECT p.session_id, p.segment, p.summary, p.text, coalesce(o.size, 0), o.text, o.packed
FROM pages p LEFT JOIN outputs o ON o.id = p.output_id WHERE p.id = ?`
	qHitOutput = `SELECT session_id, size, text, packed FROM outputs WHERE id = ?`
	// Where an output hit is shown: the page that keeps it, else the
	// message that carried it.
	qOutputPage    = `SELECT id, segment FROM pages WHERE output_id = ? ORDER BY id LIMIT 1`
	qOutputMessage = `SELECT m.id, m.segment FROM messages m, json_each(m.outputs) j
WHERE m.session_id = ?1 AND m.outputs IS NOT NULL AND j.value = ?2 ORDER BY m.id LIMIT 1`
	qHitMessage = `SELECT session_id, segment, body FROM messages WHERE id = ?`
	qHitHandoff = `SELECT session_id, seq, handoff FROM segments WHERE id = ?`
)

// Verify runs and file snapshots.
const (
	qRecordVerifyRun = `INSERT INTO verify_runs (session_id, turn_id, round, command, exit_code, started_at, duration_us, output_tail)
VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`

	qVerifyRuns = `SELECT id, session_id, coalesce(turn_id, 0), round, command, exit_code, started_at, duration_us, output_tail
FROM verify_runs WHERE session_id = ? ORDER BY id`

	qRecordSnapshot = `INSERT INTO file_snapshots (session_id, turn_id, path, existed, content, hash, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`

	qSnapshots = `SELECT f.id, f.session_id, f.turn_id, t.seq, f.path, f.existed, f.content, f.hash, f.created_at
FROM file_snapshots f JOIN turns t ON t.id = f.turn_id
WHERE f.session_id = ? AND t.seq >= ? ORDER BY f.id`
)

// The context engine: decisions and compactions.
const (
	qAddDecision = `INSERT INTO decisions (session_id, seq, source, turn, topic, text, created_at, kind)
VALUES (?1, (SELECT coalesce(max(seq), 0) + 1 FROM decisions WHERE session_id = ?1), ?2, ?3, ?4, ?5, ?6, ?7)
RETURNING seq`

	// An entry is superseded once, by a later one; only an unpin of the
	// later one restores it.
	qSupersedeDecision = `UPDATE decisions SET superseded_by = ?3
WHERE session_id = ?1 AND seq = ?2 AND superseded_by = 0 AND ?3 > seq
	AND EXISTS (SELECT 1 FROM decisions WHERE session_id = ?1 AND seq = ?3)`

	qSetDecisionTopic = `UPDATE decisions SET topic = ?3 WHERE session_id = ?1 AND seq = ?2`

	qDecisions = `SELECT session_id, seq, source, kind, turn, topic, text, superseded_by, pinned, created_at
FROM decisions WHERE session_id = ? ORDER BY seq`

	qPinDecision = `UPDATE decisions SET pinned = ?3 WHERE session_id = ?1 AND seq = ?2 AND source = 'user'`

	// An unpinned entry changes no rule: what it retired stands again.
	qRestoreDecisions = `UPDATE decisions SET superseded_by = 0 WHERE session_id = ?1 AND superseded_by = ?2 RETURNING seq`

	qRecordCompaction = `INSERT INTO compactions (session_id, segment, call_id, level, page_id, text, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (session_id, segment, call_id) DO UPDATE SET level = excluded.level, page_id = excluded.page_id, text = excluded.text`

	qCompactions = `SELECT session_id, segment, call_id, level, page_id, text FROM compactions
WHERE session_id = ? AND segment = ? ORDER BY created_at, call_id`

	qPagedCalls = `SELECT call_id FROM compactions WHERE session_id = ? AND segment = ? AND page_id != ''`
)

// Process groups of shell commands.
const (
	qProcCols = `id, coalesce(session_id, ''), coalesce(turn_id, 0), call_id, job, command, pid, pid_start, boot, supervised,
	owner_pid, owner_start, status, how, note, started_at, coalesce(ended_at, 0)`

	qRecordProc = `INSERT INTO procs (session_id, turn_id, call_id, job, command, pid, pid_start, boot, supervised,
	owner_pid, owner_start, status, started_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?) RETURNING id`

	// A row ends once: a later godwit's sweep and the owner's own end
	// call may race, and the first word stands.
	qEndProc = `UPDATE procs SET status = ?, how = ?, note = ?, ended_at = ? WHERE id = ? AND status = 'running'`

	qRunningProcs = `SELECT ` + qProcCols + ` FROM procs WHERE status = 'running' ORDER BY id`
	qProcs        = `SELECT ` + qProcCols + ` FROM procs WHERE session_id = ? ORDER BY id`
)

// Mail between sessions, its receipts, and residents. A claim is one
// UPDATE ... RETURNING, so two processes never deliver the same message.
const (
	qMailCols = `m.id, m.target, m.from_kind, m.sender, m.body, m.created_at, m.state, m.claimed_by,
	coalesce(m.turn_id, 0), coalesce(t.seq, 0), m.answer, m.error, m.updated_at, coalesce(m.acked_at, 0)`
	qMailFrom = ` FROM mail m LEFT JOIN turns t ON t.id = m.turn_id`
	// RETURNING cannot join: the turn's seq comes back 0.
	qMailReturning = ` RETURNING id, target, from_kind, sender, body, created_at, state, claimed_by,
	coalesce(turn_id, 0), 0, answer, error, updated_at, coalesce(acked_at, 0)`

	qPostMail = `INSERT INTO mail (target, from_kind, sender, body, created_at, state, updated_at)
VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?5)` + qMailReturning

	qMailByID = `SELECT ` + qMailCols + qMailFrom + ` WHERE m.id = ?`

	// A message is held while a message from the same sender to the same
	// session has failed and nobody has acknowledged it.
	qHeld = `EXISTS (SELECT 1 FROM mail f WHERE f.target = m.target AND f.sender = m.sender
	AND f.from_kind = m.from_kind AND f.state = 'failed' AND f.acked_at IS NULL)`

	qClaimMail = `UPDATE mail SET state = 'delivered', claimed_by = ?2, updated_at = ?3
WHERE id IN (SELECT m.id FROM mail m WHERE m.target = ?1 AND m.state = 'queued' AND NOT ` + qHeld + `
	ORDER BY m.id LIMIT ?4)` + qMailReturning

	qClaimable = `SELECT EXISTS (SELECT 1 FROM mail m WHERE m.target = ? AND m.state = 'queued' AND NOT ` + qHeld + `)`

	qHeldBy = `SELECT ` + qMailCols + qMailFrom + `
WHERE m.target = ? AND m.sender = ? AND m.from_kind = ? AND m.state = 'failed' AND m.acked_at IS NULL
ORDER BY m.id LIMIT 1`

	qMailInTurn = `UPDATE mail SET turn_id = ?2, updated_at = ?3 WHERE id = ?1 AND state = 'delivered'` + qMailReturning

	qFinishMail = `UPDATE mail SET state = ?2, answer = ?3, error = ?4, updated_at = ?5
WHERE id = ?1 AND state = 'delivered'` + qMailReturning

	// Recovery changes a claim only while it is still the dead process's.
	qRequeueMail = `UPDATE mail SET state = 'queued', claimed_by = '', turn_id = NULL, updated_at = ?3
WHERE id = ?1 AND state = 'delivered' AND claimed_by = ?2` + qMailReturning
	qFailClaim = `UPDATE mail SET state = 'failed', error = ?3, updated_at = ?4
WHERE id = ?1 AND state = 'delivered' AND claimed_by = ?2` + qMailReturning

	qExpireMail = `UPDATE mail SET state = 'expired', error = ?2, updated_at = ?3 WHERE id = ?1 AND state = 'queued'` + qMailReturning

	qAckMail = `UPDATE mail SET acked_at = ?2, updated_at = ?2 WHERE id = ?1 AND state = 'failed' AND acked_at IS NULL` + qMailReturning

	qClaims = `SELECT ` + qMailCols + qMailFrom + ` WHERE m.target = ? AND m.state = 'delivered' ORDER BY m.id`

	qQueuedAfter = `SELECT ` + qMailCols + qMailFrom + ` WHERE m.target = ? AND m.state = 'queued' AND m.id > ? ORDER BY m.id LIMIT ?`

	qMailOfTurn = `SELECT ` + qMailCols + qMailFrom + ` WHERE m.turn_id = ? ORDER BY m.id`

	// Messages to or from a session (all when ?1 is ''), newest first.
	qMailbox = `SELECT ` + qMailCols + qMailFrom + `
WHERE ?1 = '' OR m.target = ?1 OR (m.from_kind = 'session' AND m.sender = ?1)
ORDER BY m.id DESC LIMIT ?2`

	qAddReceipt = `INSERT INTO mail_receipts (mail_id, state, at, turn_id, note) VALUES (?, ?, ?, ?, ?)`

	qReceipts = `SELECT r.id, r.mail_id, r.state, r.at, coalesce(r.turn_id, 0), coalesce(t.seq, 0), r.note
FROM mail_receipts r LEFT JOIN turns t ON t.id = r.turn_id WHERE r.mail_id = ? ORDER BY r.id`

	qResident     = `SELECT session_id, owner, pid, command, since FROM residents WHERE session_id = ?`
	qSetResident  = `INSERT OR REPLACE INTO residents (session_id, owner, pid, command, since) VALUES (?, ?, ?, ?, ?)`
	qDropResident = `DELETE FROM residents WHERE session_id = ? AND owner = ?`
	qDataVersion  = `PRAGMA data_version`

	// Mail is in use in a workspace once a session there has mail, sent
	// or received, or is served.
	qMailInUse = `SELECT EXISTS (SELECT 1 FROM mail m JOIN sessions s ON s.id = m.target WHERE s.workspace = ?1)
	OR EXISTS (SELECT 1 FROM mail m JOIN sessions s ON s.id = m.sender WHERE m.from_kind = 'session' AND s.workspace = ?1)
	OR EXISTS (SELECT 1 FROM residents r JOIN sessions s ON s.id = r.session_id WHERE r.command = 'serve' AND s.workspace = ?1)`
)

// Approvals (approval.go).
const (
	qRecordApproval = `INSERT INTO approvals (session_id, turn_id, call_id, tool, subject, decision, source, rule, at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`
)

// Eval results and verdicts (eval.go).
const (
	qRecordEvalResult = `INSERT INTO eval_results (suite, name, model, session_id, passed, score, input_tokens, output_tokens, cost, duration_us, details, started_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`

	qRecordEvalVerdict = `INSERT INTO eval_verdicts (a, b, why, passed, summary, details, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`
)

// Long-term memory: memory entries (the memory files, in chunks), and
// search over them, the Decisions ledgers, pages and handoffs of every
// session, plus a cache of embedding vectors (memory.go).
const (
	qMemoryEntries = `SELECT id, scope, workspace, kind, text, coalesce(session_id, ''), created_at
FROM memory_entries WHERE scope = ? AND workspace = ? AND kind = ? ORDER BY id`
	qDeleteMemoryEntries = `DELETE FROM memory_entries WHERE scope = ? AND workspace = ? AND kind = ?`
	qAddMemoryEntry      = `INSERT INTO memory_entries (scope, workspace, kind, text, created_at) VALUES (?, ?, ?, ?, ?)`

	// Searches keep to one workspace (?3): the decisions of its
	// sessions, the user's memory entries and its own, its sessions'
	// pages and handoffs.
	qSearchMemory = `SELECT rowid & 3, rowid >> 2, rank FROM memory_fts
WHERE memory_fts MATCH ?1 AND CASE rowid & 3
	WHEN 1 THEN EXISTS (SELECT 1 FROM decisions d JOIN sessions s ON s.id = d.session_id WHERE d.id = memory_fts.rowid >> 2 AND s.workspace = ?3)
	WHEN 2 THEN EXISTS (SELECT 1 FROM memory_entries e WHERE e.id = memory_fts.rowid >> 2 AND (e.scope = 'user' OR e.workspace = ?3))
	ELSE 0 END
ORDER BY rank, rowid LIMIT ?2`
	// An output (kind 0) is found as the first page that keeps it, and
	// a page found by its summary and by its output once.
	qSearchArchive = `SELECT k, n, min(rk) AS r FROM (SELECT CASE rowid & 3 WHEN 0 THEN 1 ELSE rowid & 3 END AS k,
	CASE rowid & 3 WHEN 0 THEN (SELECT min(id) FROM pages WHERE output_id = search_fts.rowid >> 2) ELSE rowid >> 2 END AS n, rank AS rk
	FROM search_fts WHERE search_fts MATCH ?1)
WHERE CASE k
	WHEN 1 THEN EXISTS (SELECT 1 FROM pages p JOIN sessions s ON s.id = p.session_id WHERE p.id = n AND s.workspace = ?3)
	WHEN 3 THEN EXISTS (SELECT 1 FROM segments g JOIN sessions s ON s.id = g.session_id WHERE g.id = n AND s.workspace = ?3)
	ELSE 0 END
GROUP BY k, n ORDER BY r, n * 4 + k LIMIT ?2`

	// What a memory hit shows, by kind: the columns docRow scans, from
	// the rows the WHERE clause picks; ?1 caps the text, in characters.
	// A page's text may be its output's: the last two columns are the
	// output's size and its deflated text, which docRow inflates.
	qDocDecision = `SELECT id, session_id, seq, superseded_by, '', '', '', created_at, substr(text, 1, ?1), 0, NULL FROM decisions`
	qDocEntry    = `SELECT id, '', 0, 0, scope, workspace, kind, created_at, substr(text, 1, ?1), 0, NULL FROM memory_entries`
	qDocPage     = `SELECT * FROM (SELECT p.id, p.session_id, p.segment, 0, '', '', p.kind, p.created_at,
	substr(p.summary || char(10) || coalesce(o.text, p.text), 1, ?1), coalesce(o.size, 0), o.packed
	FROM pages p LEFT JOIN outputs o ON o.id = p.output_id)`
	qDocHandoff = `SELECT id, session_id, seq, 0, '', '', '', coalesce(ended_at, started_at), substr(handoff, 1, ?1), 0, NULL FROM segments`
	// Handoffs only of segments that have one.
	qDocHandoffKept = `SELECT * FROM (` + qDocHandoff + ` WHERE handoff <> '')`

	// Each document query is limited to one workspace (?3), then to one
	// document by id, or to the newest of a kind for the corpus ranked by
	// embeddings besides the keyword hits.
	qSessionRowInScope = ` WHERE session_id IN (SELECT id FROM sessions WHERE workspace = ?3)`
	qEntryInScope      = ` WHERE (scope = 'user' OR workspace = ?3)`
	qAndID             = ` AND id = ?2`
	qNewest            = ` ORDER BY id DESC LIMIT ?2`

	qVectors   = `SELECT hash, vec FROM embeddings WHERE model = ? AND hash IN (SELECT value FROM json_each(?))`
	qPutVector = `INSERT INTO embeddings (model, hash, dim, vec, created_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (model, hash) DO NOTHING`
)

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

	// A prefix match is a scan, case-insensitive; sessions are few.
	qSessionsByPrefix = `SELECT ` + qSessionCols + ` FROM sessions
WHERE lower(substr(id, 1, length(?1))) = lower(?1) ORDER BY id LIMIT 6`

	// ?1 = '' means every workspace.
	qLastSessionIn = `SELECT ` + qSessionCols + ` FROM sessions WHERE parent_id IS NULL AND (?1 = '' OR workspace = ?1)
ORDER BY updated_at DESC, id DESC LIMIT 1`
	qSubSessions = `SELECT ` + qSessionCols + ` FROM sessions WHERE parent_id = ? ORDER BY created_at, id`

	qUpdateSession = `UPDATE sessions SET title = ?, model = ?, updated_at = max(updated_at, ?) WHERE id = ?`
	qSetTitle      = `UPDATE sessions SET title = ?, updated_at = max(updated_at, ?) WHERE id = ?`

	// Usage and cost sum the model calls, so interrupted turns and
	// handoff calls count too.
	qListSessions = `SELECT s.id, coalesce(s.parent_id, ''), s.title, s.workspace, s.model, s.created_at, s.updated_at,
	(SELECT count(*) FROM turns t WHERE t.session_id = s.id),
	coalesce(sum(m.input_tokens), 0), coalesce(sum(m.output_tokens), 0), coalesce(sum(m.reasoning_tokens), 0),
	coalesce(sum(m.cache_read_tokens), 0), coalesce(sum(m.cache_write_tokens), 0), coalesce(sum(m.cost), 0)
FROM (SELECT * FROM sessions WHERE ?1 = '' OR workspace = ?1 ORDER BY updated_at DESC, id DESC LIMIT ?2) s
LEFT JOIN model_calls m ON m.session_id = s.id
GROUP BY s.id
ORDER BY s.updated_at DESC, s.id DESC`
)

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
	cost, stop_reason, coalesce(parts, ''), request_bytes, retries, fallback, error
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
	qEventCols = `e.id, e.session_id, coalesce(e.turn_id, 0), e.type, e.at, e.data, e.output_max, coalesce(o.size, 0), o.text, o.packed`

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

	// The outputs the messages of a segment (all when ?2 < 0) refer to.
	qSegmentOutputs = `SELECT o.id, o.size, o.text, o.packed FROM outputs o
WHERE o.id IN (SELECT j.value FROM messages m, json_each(m.outputs) j
	WHERE m.session_id = ?1 AND (?2 < 0 OR m.segment = ?2) AND m.outputs IS NOT NULL)`
)

// Pages and search.
const (
	qPutPage = `INSERT INTO pages (session_id, segment, kind, tags, tokens, from_at, to_at, summary, text, created_at, output_id)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`

	qPage = `SELECT p.id, p.session_id, p.segment, p.kind, p.tags, p.tokens, coalesce(p.from_at, 0), coalesce(p.to_at, 0), p.summary, p.text,
	coalesce(o.size, 0), o.text, o.packed
FROM pages p LEFT JOIN outputs o ON o.id = p.output_id WHERE p.id = ?`

	// rank is bm25 weighted (see the migration): negative, lower is
	// better. The session test repeats the MATCH's session filter exactly
	// (the index folds case).
	qSearch = `SELECT rowid & 3, rowid >> 2, rank FROM search_fts
WHERE search_fts MATCH ?1 AND (?2 = '' OR ?2 = CASE rowid & 3
	WHEN 0 THEN (SELECT session_id FROM outputs WHERE id = search_fts.rowid >> 2)
	WHEN 1 THEN (SELECT session_id FROM pages WHERE id = search_fts.rowid >> 2)
	WHEN 2 THEN (SELECT session_id FROM messages WHERE id = search_fts.rowid >> 2)
	WHEN 3 THEN (SELECT session_id FROM segments WHERE id = search_fts.rowid >> 2) END)
ORDER BY rank, rowid LIMIT ?3`

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

// Token counts.
const (
	qTokenCounts = `SELECT hash, tokens FROM token_counts WHERE tokenizer = ?1 AND hash IN (SELECT value FROM json_each(?2))`

	qPutTokenCount = `INSERT INTO token_counts (tokenizer, hash, tokens) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`
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

	// An entry is superseded once, by a later one; never un-superseded.
	qSupersedeDecision = `UPDATE decisions SET superseded_by = ?3
WHERE session_id = ?1 AND seq = ?2 AND superseded_by = 0 AND ?3 > seq
	AND EXISTS (SELECT 1 FROM decisions WHERE session_id = ?1 AND seq = ?3)`

	qSetDecisionTopic = `UPDATE decisions SET topic = ?3 WHERE session_id = ?1 AND seq = ?2`

	qDecisions = `SELECT seq, source, turn, topic, text, superseded_by, created_at, kind
FROM decisions WHERE session_id = ? ORDER BY seq`

	qRecordCompaction = `INSERT INTO compactions (session_id, segment, call_id, level, page_id, text, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (session_id, segment, call_id) DO UPDATE SET level = excluded.level, page_id = excluded.page_id, text = excluded.text`

	qCompactions = `SELECT call_id, level, page_id, text FROM compactions
WHERE session_id = ? AND segment = ? ORDER BY created_at, call_id`
)

-- 0001: godwit's first schema.
--
-- Units: every *_at column is Unix milliseconds (UTC), NULL when unknown;
-- every *_us column is a duration in microseconds. Text that the model or a
-- tool produced (arguments, outputs, message bodies) is stored as given.
-- Every table that belongs to a session cascades when the session goes.

CREATE TABLE sessions (
	id         TEXT PRIMARY KEY,
	parent_id  TEXT REFERENCES sessions(id) ON DELETE SET NULL,
	title      TEXT NOT NULL DEFAULT '',
	workspace  TEXT NOT NULL DEFAULT '',
	model      TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	-- Last activity: bumped by UpdateSession and by the turn triggers below.
	updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_updated ON sessions(updated_at);
CREATE INDEX sessions_parent ON sessions(parent_id);

-- A segment is one context window's worth of a session; it ends with a
-- handoff that opens the next one.
CREATE TABLE segments (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	started_at INTEGER NOT NULL,
	ended_at   INTEGER,
	reason     TEXT NOT NULL DEFAULT '',
	handoff    TEXT NOT NULL DEFAULT '',
	tokens     INTEGER NOT NULL DEFAULT 0,
	UNIQUE (session_id, seq)
) STRICT;

CREATE TABLE turns (
	id                 INTEGER PRIMARY KEY,
	session_id         TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	seq                INTEGER NOT NULL,
	segment            INTEGER NOT NULL DEFAULT 0,
	prompt             TEXT NOT NULL DEFAULT '',
	status             TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed', 'cancelled', 'interrupted')),
	started_at         INTEGER NOT NULL,
	ended_at           INTEGER,
	input_tokens       INTEGER NOT NULL DEFAULT 0,
	output_tokens      INTEGER NOT NULL DEFAULT 0,
	reasoning_tokens   INTEGER NOT NULL DEFAULT 0,
	cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
	cache_write_tokens INTEGER NOT NULL DEFAULT 0,
	cost               REAL NOT NULL DEFAULT 0,
	error              TEXT NOT NULL DEFAULT '',
	UNIQUE (session_id, seq)
) STRICT;
CREATE INDEX turns_running ON turns(status) WHERE status = 'running';

CREATE TRIGGER turns_touch_insert AFTER INSERT ON turns BEGIN
	UPDATE sessions SET updated_at = max(updated_at, NEW.started_at) WHERE id = NEW.session_id;
END;
CREATE TRIGGER turns_touch_end AFTER UPDATE OF ended_at ON turns WHEN NEW.ended_at IS NOT NULL BEGIN
	UPDATE sessions SET updated_at = max(updated_at, NEW.ended_at) WHERE id = NEW.session_id;
END;

-- body is the JSON of an llm.Message. Its searchable text (computed in Go)
-- is only in search_fts, so it is not stored twice.
CREATE TABLE messages (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	turn_id    INTEGER REFERENCES turns(id) ON DELETE CASCADE,
	segment    INTEGER NOT NULL DEFAULT 0,
	role       TEXT NOT NULL,
	body       TEXT NOT NULL,
	created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX messages_session ON messages(session_id, segment, id);
CREATE INDEX messages_turn ON messages(turn_id);

-- One row per request to a model. parts is a JSON array of
-- {"name","bytes","tokens"}: what each part of the request cost.
CREATE TABLE model_calls (
	id                 INTEGER PRIMARY KEY,
	session_id         TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	turn_id            INTEGER REFERENCES turns(id) ON DELETE CASCADE,
	segment            INTEGER NOT NULL DEFAULT 0,
	step               INTEGER NOT NULL DEFAULT 0,
	provider           TEXT NOT NULL DEFAULT '',
	model              TEXT NOT NULL DEFAULT '',
	started_at         INTEGER NOT NULL,
	latency_us         INTEGER NOT NULL DEFAULT 0,
	ttft_us            INTEGER NOT NULL DEFAULT 0,
	input_tokens       INTEGER NOT NULL DEFAULT 0,
	output_tokens      INTEGER NOT NULL DEFAULT 0,
	reasoning_tokens   INTEGER NOT NULL DEFAULT 0,
	cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
	cache_write_tokens INTEGER NOT NULL DEFAULT 0,
	cost               REAL NOT NULL DEFAULT 0,
	stop_reason        TEXT NOT NULL DEFAULT '',
	parts              TEXT,
	request_bytes      INTEGER NOT NULL DEFAULT 0,
	retries            INTEGER NOT NULL DEFAULT 0,
	fallback           TEXT NOT NULL DEFAULT '',
	error              TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX model_calls_session ON model_calls(session_id, id);
CREATE INDEX model_calls_turn ON model_calls(turn_id);

-- approval: '' (read-only tool), 'auto', 'rule', 'user' or 'denied'.
-- changed: JSON array of the paths the call wrote, NULL when none.
CREATE TABLE tool_calls (
	id          INTEGER PRIMARY KEY,
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	turn_id     INTEGER REFERENCES turns(id) ON DELETE CASCADE,
	step        INTEGER NOT NULL DEFAULT 0,
	call_id     TEXT NOT NULL DEFAULT '',
	name        TEXT NOT NULL,
	args        TEXT,
	output      TEXT NOT NULL DEFAULT '',
	is_error    INTEGER NOT NULL DEFAULT 0,
	code        TEXT NOT NULL DEFAULT '',
	exit_code   INTEGER,
	started_at  INTEGER NOT NULL,
	duration_us INTEGER NOT NULL DEFAULT 0,
	approval    TEXT NOT NULL DEFAULT '' CHECK (approval IN ('', 'auto', 'rule', 'user', 'denied')),
	changed     TEXT
) STRICT;
CREATE INDEX tool_calls_session ON tool_calls(session_id, id);
CREATE INDEX tool_calls_turn ON tool_calls(turn_id);

-- The event stream as the sinks saw it; data is the event's JSON.
CREATE TABLE events (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	turn_id    INTEGER REFERENCES turns(id) ON DELETE CASCADE,
	type       TEXT NOT NULL,
	at         INTEGER NOT NULL,
	data       TEXT
) STRICT;
CREATE INDEX events_session ON events(session_id, id);
CREATE INDEX events_turn ON events(turn_id);

-- Context paged out of the window. The page id the model sees is 'p' || id.
-- tags is a JSON array of strings.
CREATE TABLE pages (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	segment    INTEGER NOT NULL DEFAULT 0,
	kind       TEXT NOT NULL DEFAULT '',
	tags       TEXT NOT NULL DEFAULT '[]',
	tokens     INTEGER NOT NULL DEFAULT 0,
	from_at    INTEGER,
	to_at      INTEGER,
	summary    TEXT NOT NULL DEFAULT '',
	text       TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX pages_session ON pages(session_id, segment);

-- One full-text index over pages, messages and segment handoffs, so that
-- their BM25 scores come from one corpus and compare. It is contentless:
-- the text stays in its own table. rowid = source id * 4 + kind, with kind
-- 1 page, 2 message, 3 handoff. body is what is searched; session holds
-- the session id as a token, to filter on inside the index, and weighs
-- nothing in the rank.
CREATE VIRTUAL TABLE search_fts USING fts5(body, session, content='', contentless_delete=1);
INSERT INTO search_fts(search_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)');

CREATE TRIGGER pages_search_insert AFTER INSERT ON pages BEGIN
	INSERT INTO search_fts(rowid, body, session)
	VALUES (NEW.id * 4 + 1, NEW.summary || char(10) || NEW.tags || char(10) || NEW.text, NEW.session_id);
END;
CREATE TRIGGER pages_search_delete AFTER DELETE ON pages BEGIN
	DELETE FROM search_fts WHERE rowid = OLD.id * 4 + 1;
END;
CREATE TRIGGER pages_search_update AFTER UPDATE OF summary, text, tags ON pages BEGIN
	DELETE FROM search_fts WHERE rowid = OLD.id * 4 + 1;
	INSERT INTO search_fts(rowid, body, session)
	VALUES (NEW.id * 4 + 1, NEW.summary || char(10) || NEW.tags || char(10) || NEW.text, NEW.session_id);
END;

-- Messages are indexed by AppendMessage (kind 2), in its transaction.
CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
	DELETE FROM search_fts WHERE rowid = OLD.id * 4 + 2;
END;

CREATE TRIGGER handoffs_search_insert AFTER INSERT ON segments WHEN NEW.handoff <> '' BEGIN
	INSERT INTO search_fts(rowid, body, session) VALUES (NEW.id * 4 + 3, NEW.handoff, NEW.session_id);
END;
CREATE TRIGGER handoffs_search_delete AFTER DELETE ON segments BEGIN
	DELETE FROM search_fts WHERE rowid = OLD.id * 4 + 3;
END;
CREATE TRIGGER handoffs_search_update AFTER UPDATE OF handoff ON segments BEGIN
	DELETE FROM search_fts WHERE rowid = OLD.id * 4 + 3;
	INSERT INTO search_fts(rowid, body, session)
	SELECT NEW.id * 4 + 3, NEW.handoff, NEW.session_id WHERE NEW.handoff <> '';
END;

-- One run of the --verify command.
CREATE TABLE verify_runs (
	id          INTEGER PRIMARY KEY,
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	turn_id     INTEGER REFERENCES turns(id) ON DELETE CASCADE,
	round       INTEGER NOT NULL,
	command     TEXT NOT NULL,
	exit_code   INTEGER NOT NULL,
	started_at  INTEGER NOT NULL,
	duration_us INTEGER NOT NULL DEFAULT 0,
	output_tail TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX verify_runs_session ON verify_runs(session_id, id);

-- A file as it was before a turn first wrote it; undo restores it.
-- existed = 0 means the turn created the file (undo deletes it).
CREATE TABLE file_snapshots (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	turn_id    INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
	path       TEXT NOT NULL,
	existed    INTEGER NOT NULL,
	content    BLOB,
	hash       TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX file_snapshots_session ON file_snapshots(session_id, turn_id);

-- Tables for later issues; created now so that migrations stay linear.

-- One approval question and its answer (decision: 'allow', 'deny', ...).
CREATE TABLE approvals (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	turn_id    INTEGER REFERENCES turns(id) ON DELETE CASCADE,
	call_id    TEXT NOT NULL DEFAULT '',
	tool       TEXT NOT NULL DEFAULT '',
	subject    TEXT NOT NULL DEFAULT '',
	decision   TEXT NOT NULL,
	source     TEXT NOT NULL DEFAULT '',
	rule       TEXT NOT NULL DEFAULT '',
	at         INTEGER NOT NULL
) STRICT;
CREATE INDEX approvals_session ON approvals(session_id, id);

-- Long-term memory: scope is 'user' or 'project' (workspace names which).
CREATE TABLE memory_entries (
	id            INTEGER PRIMARY KEY,
	scope         TEXT NOT NULL,
	workspace     TEXT NOT NULL DEFAULT '',
	kind          TEXT NOT NULL DEFAULT '',
	text          TEXT NOT NULL,
	session_id    TEXT REFERENCES sessions(id) ON DELETE SET NULL,
	superseded_by INTEGER REFERENCES memory_entries(id),
	created_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX memory_entries_scope ON memory_entries(scope, workspace);

-- One case of an eval suite; details is JSON.
CREATE TABLE eval_results (
	id          INTEGER PRIMARY KEY,
	suite       TEXT NOT NULL,
	name        TEXT NOT NULL,
	model       TEXT NOT NULL DEFAULT '',
	session_id  TEXT REFERENCES sessions(id) ON DELETE SET NULL,
	passed      INTEGER NOT NULL,
	score       REAL NOT NULL DEFAULT 0,
	input_tokens  INTEGER NOT NULL DEFAULT 0,
	output_tokens INTEGER NOT NULL DEFAULT 0,
	cost        REAL NOT NULL DEFAULT 0,
	duration_us INTEGER NOT NULL DEFAULT 0,
	details     TEXT,
	started_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX eval_results_suite ON eval_results(suite, started_at);

-- The context engine's own records.

-- The Decisions ledger of a session: the user's messages as said, and
-- entries the model proposed at a handoff. Entries are never rewritten;
-- superseded_by (a later seq) is the only change an entry can undergo.
CREATE TABLE decisions (
	id            INTEGER PRIMARY KEY,
	session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	seq           INTEGER NOT NULL,
	source        TEXT NOT NULL CHECK (source IN ('user', 'model')),
	turn          INTEGER NOT NULL DEFAULT 0,
	topic         TEXT NOT NULL DEFAULT '',
	text          TEXT NOT NULL,
	superseded_by INTEGER NOT NULL DEFAULT 0,
	created_at    INTEGER NOT NULL,
	UNIQUE (session_id, seq)
) STRICT;

-- How a tool output of a segment is shown in the window: 1 summarised,
-- 2 a one-line stub; the full text is in pages.
CREATE TABLE compactions (
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	segment    INTEGER NOT NULL,
	call_id    TEXT NOT NULL,
	level      INTEGER NOT NULL,
	page_id    TEXT NOT NULL,
	text       TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (session_id, segment, call_id)
) STRICT;

-- outputs: each tool output stored once, and token counts kept.
--
-- Before this, a tool output was stored about four times: in
-- tool_calls.output, in the tool message's body, in its page when it was
-- paged out, and in the tool.finished event's preview (plus twice in the
-- search index). Now the text lives in outputs, once per session, and
-- the rest refer to it by id. Rows written before stay as they are: the
-- store reads the text from wherever it is, so callers see no change.

-- One text per session and content: hash is its SHA-256, so the same
-- output reaching the tool call, the message and the page is one row.
-- text holds it as is, or packed holds it deflated (RFC 1951) when that
-- is smaller (long outputs: logs, sources, listings); size is its length
-- in bytes. The search index holds it once, as kind 0 (rowid = id * 4).
CREATE TABLE outputs (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	hash       BLOB NOT NULL,
	size       INTEGER NOT NULL,
	text       TEXT,
	packed     BLOB,
	created_at INTEGER NOT NULL,
	UNIQUE (session_id, hash)
) STRICT;

CREATE TRIGGER outputs_search_delete AFTER DELETE ON outputs BEGIN
	DELETE FROM search_fts WHERE rowid = OLD.id * 4;
END;

-- The tool call's output; tool_calls.output is '' when this is set.
ALTER TABLE tool_calls ADD COLUMN output_id INTEGER REFERENCES outputs(id);

-- A tool message's outputs: a JSON array of output ids, one per tool
-- result of the body in order (0 for an empty one). The body's results
-- have empty contents; the store fills them in.
ALTER TABLE messages ADD COLUMN outputs TEXT;

-- A page that keeps a tool output whole refers to it; its text is ''.
ALTER TABLE pages ADD COLUMN output_id INTEGER REFERENCES outputs(id);
CREATE INDEX pages_output ON pages(output_id) WHERE output_id IS NOT NULL;

-- An event that carries an output (tool.finished) refers to it: its
-- data holds a placeholder where the output's first output_max bytes go
-- (store.OutputPlaceholder; the store splices them back).
ALTER TABLE events ADD COLUMN output_id INTEGER REFERENCES outputs(id);
ALTER TABLE events ADD COLUMN output_max INTEGER NOT NULL DEFAULT 0;

-- Token counts by the text's hash (64-bit FNV-1a, as window.Counter
-- keys them) and the tokenizer that counted them, so a resumed session
-- counts only what is new. Shared by every session: a system prompt or a
-- tool table is counted once.
CREATE TABLE token_counts (
	tokenizer TEXT NOT NULL,
	hash      INTEGER NOT NULL,
	tokens    INTEGER NOT NULL,
	PRIMARY KEY (tokenizer, hash)
) STRICT, WITHOUT ROWID;

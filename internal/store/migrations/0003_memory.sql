-- 0003: long-term memory for search_memory.

-- One full-text index over the Decisions ledgers of every session and the
-- memory entries (the memory files, in chunks). Contentless like
-- search_fts: the text stays in its own table. rowid = source id * 4 +
-- kind, with kind 1 decision, 2 memory entry.
CREATE VIRTUAL TABLE memory_fts USING fts5(body, content='', contentless_delete=1);

CREATE TRIGGER decisions_memory_insert AFTER INSERT ON decisions BEGIN
	INSERT INTO memory_fts(rowid, body) VALUES (NEW.id * 4 + 1, NEW.text);
END;
CREATE TRIGGER decisions_memory_delete AFTER DELETE ON decisions BEGIN
	DELETE FROM memory_fts WHERE rowid = OLD.id * 4 + 1;
END;
INSERT INTO memory_fts(rowid, body) SELECT id * 4 + 1, text FROM decisions;

CREATE TRIGGER memory_entries_search_insert AFTER INSERT ON memory_entries BEGIN
	INSERT INTO memory_fts(rowid, body) VALUES (NEW.id * 4 + 2, NEW.text);
END;
CREATE TRIGGER memory_entries_search_delete AFTER DELETE ON memory_entries BEGIN
	DELETE FROM memory_fts WHERE rowid = OLD.id * 4 + 2;
END;
CREATE TRIGGER memory_entries_search_update AFTER UPDATE OF text ON memory_entries BEGIN
	DELETE FROM memory_fts WHERE rowid = OLD.id * 4 + 2;
	INSERT INTO memory_fts(rowid, body) VALUES (NEW.id * 4 + 2, NEW.text);
END;
INSERT INTO memory_fts(rowid, body) SELECT id * 4 + 2, text FROM memory_entries;

-- Embedding vectors, keyed by the embedding model and the SHA-256 (hex) of
-- the text embedded, so a text is sent to the endpoint once per model.
-- vec holds dim little-endian float32s, normalised to unit length.
CREATE TABLE embeddings (
	model      TEXT NOT NULL,
	hash       TEXT NOT NULL,
	dim        INTEGER NOT NULL,
	vec        BLOB NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (model, hash)
) STRICT, WITHOUT ROWID;

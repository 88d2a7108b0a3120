-- 0007: mail between sessions (issue #19).
--
-- A message goes to one session (target) from a session, the user or a
-- named program (sender: a session id, 'user', or the program's name).
-- Its state moves queued -> delivered (claimed for a turn; turn_id is set
-- when the turn starts) -> answered (the turn's answer) or failed (the
-- turn's error); a queued message can also expire (its waiting sender gave
-- up). Every change is a row of mail_receipts, which is what senders read.
CREATE TABLE mail (
	id         INTEGER PRIMARY KEY,
	target     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	from_kind  TEXT NOT NULL CHECK (from_kind IN ('session', 'user', 'program')),
	sender     TEXT NOT NULL,
	body       TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	state      TEXT NOT NULL CHECK (state IN ('queued', 'delivered', 'answered', 'failed', 'expired')),
	-- The process that claimed it ("pid/start"), so a claim whose process
	-- died can be told from one still running.
	claimed_by TEXT NOT NULL DEFAULT '',
	turn_id    INTEGER REFERENCES turns(id) ON DELETE SET NULL,
	answer     TEXT NOT NULL DEFAULT '',
	error      TEXT NOT NULL DEFAULT '',
	updated_at INTEGER NOT NULL,
	-- A failed message holds the sender's later messages to the same
	-- session until someone acknowledges it.
	acked_at   INTEGER
) STRICT;
CREATE INDEX mail_target ON mail(target, state, id);
CREATE INDEX mail_sender ON mail(sender, target, state);

CREATE TABLE mail_receipts (
	id      INTEGER PRIMARY KEY,
	mail_id INTEGER NOT NULL REFERENCES mail(id) ON DELETE CASCADE,
	-- queued, delivered, answered, failed, expired, requeued, acknowledged
	state   TEXT NOT NULL,
	at      INTEGER NOT NULL,
	turn_id INTEGER REFERENCES turns(id) ON DELETE SET NULL,
	note    TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX mail_receipts_mail ON mail_receipts(mail_id, id);

-- The process that keeps a session open and answers its mail (godwit
-- serve, a chat, an editor's session, a run): one at a time.
CREATE TABLE residents (
	session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
	owner      TEXT NOT NULL,
	pid        INTEGER NOT NULL,
	command    TEXT NOT NULL DEFAULT '',
	since      INTEGER NOT NULL
) STRICT;

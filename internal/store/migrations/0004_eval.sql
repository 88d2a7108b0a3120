-- 0004: verdicts of `godwit eval compare`.

-- One comparison of two eval result sets: which (a, b: labels such as the
-- file and model), why it was run, whether its bars passed, a one-line
-- summary, and the whole verdict as JSON (per task labels and numbers).
CREATE TABLE eval_verdicts (
	id         INTEGER PRIMARY KEY,
	a          TEXT NOT NULL,
	b          TEXT NOT NULL,
	why        TEXT NOT NULL DEFAULT '',
	passed     INTEGER NOT NULL,
	summary    TEXT NOT NULL DEFAULT '',
	details    TEXT,
	created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX eval_verdicts_created ON eval_verdicts(created_at);

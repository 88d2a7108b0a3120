-- 0006: the process groups shell commands run in, so that a later godwit
-- can end what an earlier one left running and tell the model the truth.
--
-- pid is the group leader (a supervisor, or the shell itself) and the
-- process group id; pid_start its start stamp (clock ticks after boot on
-- Linux, microseconds since the epoch on macOS, 0 when unknown) and boot
-- the boot it ran in, so a pid the system gave to another process since is
-- never signalled. owner_* name the godwit process that started it: only
-- a row whose owner is gone may be ended by another process.
-- status: 'running'; 'ended' (it finished on its own); 'killed' (godwit
-- killed it: a timeout, cancel, stop, the end of the session, or a later
-- godwit finding it left by one that died). how says how it ended
-- ('exit 0', 'killed', 'signal: terminated'), note why it was killed.
CREATE TABLE procs (
	id          INTEGER PRIMARY KEY,
	session_id  TEXT REFERENCES sessions(id) ON DELETE CASCADE,
	turn_id     INTEGER REFERENCES turns(id) ON DELETE CASCADE,
	call_id     TEXT NOT NULL DEFAULT '',
	job         TEXT NOT NULL DEFAULT '',
	command     TEXT NOT NULL DEFAULT '',
	pid         INTEGER NOT NULL,
	pid_start   INTEGER NOT NULL DEFAULT 0,
	boot        TEXT NOT NULL DEFAULT '',
	supervised  INTEGER NOT NULL DEFAULT 0,
	owner_pid   INTEGER NOT NULL,
	owner_start INTEGER NOT NULL DEFAULT 0,
	status      TEXT NOT NULL CHECK (status IN ('running', 'ended', 'killed')),
	how         TEXT NOT NULL DEFAULT '',
	note        TEXT NOT NULL DEFAULT '',
	started_at  INTEGER NOT NULL,
	ended_at    INTEGER
) STRICT;
CREATE INDEX procs_running ON procs(status) WHERE status = 'running';
CREATE INDEX procs_session ON procs(session_id, id);

-- Scheduled tasks: a prompt run headless in a folder on a cron expression (aiagent serve
-- runs them). next_run: the next time it is due (epoch seconds); missed: runs that fell
-- while no server was running (reported, never replayed in bulk).
CREATE TABLE schedules (
    id          TEXT PRIMARY KEY,
    cron        TEXT NOT NULL,
    prompt      TEXT NOT NULL,
    folder      TEXT NOT NULL,
    created_by  TEXT NOT NULL DEFAULT '',
    created_at  REAL NOT NULL,
    next_run    REAL NOT NULL,
    missed      INTEGER NOT NULL DEFAULT 0,
    missed_note TEXT NOT NULL DEFAULT ''
);
CREATE INDEX schedules_by_folder ON schedules(folder);

-- One row per run: the session it was stored as (empty when it could not start) and how
-- it ended (running | completed | failed | missed).
CREATE TABLE schedule_runs (
    id          INTEGER PRIMARY KEY,
    schedule_id TEXT NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
    session_id  TEXT NOT NULL DEFAULT '',
    due_at      REAL NOT NULL,
    started_at  REAL NOT NULL,
    finished_at REAL,
    status      TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'missed')),
    note        TEXT NOT NULL DEFAULT ''
);
CREATE INDEX schedule_runs_by_schedule ON schedule_runs(schedule_id, id);

-- Sessions and their messages, stored verbatim (content is the JSON of the blocks).
CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    workspace   TEXT NOT NULL,
    title       TEXT NOT NULL DEFAULT '',
    provider    TEXT NOT NULL DEFAULT '',
    model       TEXT NOT NULL DEFAULT '',
    parent_id   TEXT REFERENCES sessions(id) ON DELETE SET NULL,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL
);
CREATE INDEX sessions_by_workspace ON sessions(workspace, updated_at);

CREATE TABLE messages (
    session_id          TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq                 INTEGER NOT NULL,
    role                TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content             TEXT NOT NULL,
    model               TEXT NOT NULL DEFAULT '',
    input_tokens        INTEGER NOT NULL DEFAULT 0,
    output_tokens       INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens   INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens  INTEGER NOT NULL DEFAULT 0,
    created_at          REAL NOT NULL,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;

-- What is sent after a compaction: messages [0, upto) are replaced by the summary.
CREATE TABLE compactions (
    id          INTEGER PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    plan        TEXT NOT NULL,
    created_at  REAL NOT NULL
);
CREATE INDEX compactions_by_session ON compactions(session_id, id);

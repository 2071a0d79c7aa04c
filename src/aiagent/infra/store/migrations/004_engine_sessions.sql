-- A web session hosted on another ACP engine: that engine's own session id, so the
-- conversation can be loaded again (session/load) after the engine's process ended.
-- engine: the [web.engines.NAME] the id belongs to (never sent to another engine).
CREATE TABLE engine_sessions (
    session_id  TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    engine      TEXT NOT NULL,
    remote_id   TEXT NOT NULL,
    updated_at  REAL NOT NULL
);

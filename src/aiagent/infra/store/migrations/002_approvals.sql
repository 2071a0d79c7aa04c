-- Saved approval answers. effect: allow | deny. scope: session | project | always.
-- pattern: for shell grants the normalised command prefix; for file grants a path scope;
-- empty: the whole tool.
CREATE TABLE grants (
    id          INTEGER PRIMARY KEY,
    tool        TEXT NOT NULL,
    pattern     TEXT NOT NULL DEFAULT '',
    effect      TEXT NOT NULL CHECK (effect IN ('allow', 'deny')),
    scope       TEXT NOT NULL CHECK (scope IN ('session', 'project', 'always')),
    project     TEXT NOT NULL DEFAULT '',
    session_id  TEXT NOT NULL DEFAULT '',
    source      TEXT NOT NULL DEFAULT '',
    created_at  REAL NOT NULL,
    revoked_at  REAL
);
CREATE INDEX grants_live ON grants(tool, revoked_at);

-- Every grant, denial, use and revocation.
CREATE TABLE audit (
    id          INTEGER PRIMARY KEY,
    at          REAL NOT NULL,
    action      TEXT NOT NULL,
    tool        TEXT NOT NULL DEFAULT '',
    what        TEXT NOT NULL DEFAULT '',
    scope       TEXT NOT NULL DEFAULT '',
    grant_id    INTEGER,
    project     TEXT NOT NULL DEFAULT '',
    session_id  TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_by_time ON audit(at);

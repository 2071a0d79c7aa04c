-- The conversation of a `task` subagent is a session of its own, linked to the session of
-- the agent that started it (parent_id). agent: the child's label ("reviewer#1"); '' for a
-- person's session. Child sessions are not listed or continued on their own.
ALTER TABLE sessions ADD COLUMN agent TEXT NOT NULL DEFAULT '';

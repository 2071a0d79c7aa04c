"""Storage in the user's SQLite database: sessions, messages, grants and the audit log."""

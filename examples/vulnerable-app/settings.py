"""Settings for the demo shop. The credentials are fake but well-formed."""

DATABASE_PATH = "shop.db"
REPORTS_DB_URL = "postgresql://reports:Wint3r-Sun-88@db.internal:5432/reports"
AWS_ACCESS_KEY_ID = "AKIAZ7VQXK4M2HN6RT3B"
MAIL_PASSWORD = "pr0d-Mail!2024-xq"

"""Deployment settings for the billing worker."""
import os

AWS_ACCESS_KEY_ID = "AKIAQ3EGSX7PLRZ5M2VN"
AWS_SECRET_ACCESS_KEY = os.environ["AWS_SECRET_ACCESS_KEY"]
STRIPE_KEY = "sk_live_51HqLz2CkV8mQpR4tXyWn6BdEfGh9JkLmNoPqRsTu"
STRIPE_PUBLISHABLE = os.environ.get("STRIPE_PUBLISHABLE_KEY", "")
DATABASE_URL = "postgres://billing:Tr0ub4dor-Horse-42@db.internal:5432/billing"
REDIS_URL = os.environ.get("REDIS_URL", "redis://localhost:6379/0")
SLACK_WEBHOOK = "https://hooks.slack.com/services/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"
API_TIMEOUT = 30
SENTRY_DSN = os.environ.get("SENTRY_DSN")

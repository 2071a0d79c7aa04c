# ruff: noqa
import hashlib
import hmac
import os

import jwt

JWT_SECRET = os.environ["JWT_SECRET"]


def issue(user_id):
    return jwt.encode({"sub": user_id}, JWT_SECRET, algorithm="HS256")


def sign_webhook(body):
    key = os.environ["WEBHOOK_KEY"].encode()
    return hmac.new(key, body, hashlib.sha256).hexdigest()

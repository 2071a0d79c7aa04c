# ruff: noqa
import hashlib
import hmac

import jwt

JWT_SECRET = "change-me-please-1234"


def issue(user_id):
    return jwt.encode({"sub": user_id}, JWT_SECRET, algorithm="HS256")  # VULN


def sign_webhook(body):
    return hmac.new(b"whsec_4f9a2c7e1b", body, hashlib.sha256).hexdigest()  # VULN

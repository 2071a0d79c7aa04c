# ruff: noqa
import hashlib
import secrets


def hash_password(password, salt):
    return hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1).hex()


def api_token(user):
    return secrets.token_urlsafe(32)


def etag(body):
    return hashlib.md5(body, usedforsecurity=False).hexdigest()

# ruff: noqa
import hashlib
from hashlib import md5


def hash_password(password, salt):
    return hashlib.sha1((salt + password).encode()).hexdigest()  # VULN


def api_token(user):
    return md5(f"{user.id}:{user.email}".encode()).hexdigest()  # VULN

import hashlib
import hmac
import pickle
import secrets

import jwt
import yaml


def password_hash(password: str, salt: bytes) -> str:
    return hashlib.md5(salt + password.encode()).hexdigest()


def strong_hash(password: str, salt: bytes) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1)


def cache_key(body: bytes) -> str:
    return hashlib.md5(body, usedforsecurity=False).hexdigest()


def load_session(blob: bytes):
    return pickle.loads(blob)


def load_config(text: str):
    return yaml.safe_load(text)


def load_legacy(text: str):
    return yaml.load(text, Loader=yaml.FullLoader)


def read_token(token: str, key: str):
    return jwt.decode(token, key, algorithms=["HS256"])


def read_token_unverified(token: str):
    return jwt.decode(token, options={"verify_signature": False})


def new_api_token() -> str:
    return secrets.token_urlsafe(32)


def same(a: str, b: str) -> bool:
    return hmac.compare_digest(a, b)

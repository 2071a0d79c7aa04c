"""Mask the values of secret environment variables in text that is shown or stored.

A variable counts as secret when its name says so (``*_API_KEY``, ``*TOKEN*``,
``*SECRET*``, ``*PASSWORD*``, ...) and its value is long enough to be one; every
occurrence of such a value is replaced with ``****``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

SECRET_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|AUTH)",
                         re.IGNORECASE)
MIN_LENGTH = 8
MASK = "****"


class SecretMasker:
    def __init__(self, values: list[str]) -> None:
        self.values = sorted({v for v in values if len(v) >= MIN_LENGTH}, key=len, reverse=True)
        self._pattern = re.compile("|".join(re.escape(v) for v in self.values)) \
            if self.values else None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> SecretMasker:
        return cls([value.strip() for name, value in env.items()
                    if SECRET_NAME.search(name) and value.strip()])

    def __call__(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(MASK, text)

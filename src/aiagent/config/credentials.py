"""API keys from the system keyring, when one is usable. Keys never reach logs or history."""

from __future__ import annotations


def keyring_get(provider: str) -> str | None:
    """The key stored under service ``aiagent``, user ``provider``; None if unavailable."""
    try:
        import keyring  # optional dependency
        import keyring.errors
    except ImportError:
        return None
    try:
        value = keyring.get_password("aiagent", provider)
    except (keyring.errors.KeyringError, RuntimeError, OSError):
        return None
    return value or None

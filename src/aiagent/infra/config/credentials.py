"""API keys: the system keyring when one is usable, else a private credentials file.

The file is ``$XDG_CONFIG_HOME/aiagent/credentials.toml``, mode 0600, one table per
provider (``[anthropic] api_key = "…"``). It is written atomically and never readable by
others. Keys never reach logs, history or ``config show`` (which masks them).
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from collections.abc import Mapping
from pathlib import Path

from aiagent.infra.config import paths

SERVICE = "aiagent"


def keyring_get(provider: str) -> str | None:
    """The key stored under service ``aiagent``, user ``provider``; None if unavailable."""
    try:
        import keyring  # optional dependency
        import keyring.errors
    except ImportError:
        return None
    try:
        value = keyring.get_password(SERVICE, provider)
    except (keyring.errors.KeyringError, RuntimeError, OSError):
        return None
    return value or None


def keyring_set(provider: str, key: str) -> bool:
    """Store in the keyring; False when no usable keyring (headless Linux often has none)."""
    try:
        import keyring
        import keyring.errors
    except ImportError:
        return False
    try:
        backend = keyring.get_keyring()
        if "fail" in type(backend).__module__ or "null" in type(backend).__module__:
            return False
        keyring.set_password(SERVICE, provider, key)
    except (keyring.errors.KeyringError, RuntimeError, OSError):
        return False
    return True


def credentials_file(env: Mapping[str, str] | None = None) -> Path:
    return paths.config_dir(env) / "credentials.toml"


def file_get(provider: str, env: Mapping[str, str] | None = None) -> str | None:
    path = credentials_file(env)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    table = data.get(provider)
    value = table.get("api_key") if isinstance(table, dict) else None
    return value if isinstance(value, str) and value else None


def file_set(provider: str, key: str, env: Mapping[str, str] | None = None) -> Path:
    """Write the key into the 0600 credentials file (atomically; other providers kept).

    Raises a one-line :class:`~aiagent.infra.config.settings.ConfigError` naming the folder when
    it cannot be written (read-only, not ours, a file in the way)."""
    path = credentials_file(env)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        data = {}
    data[provider] = {"api_key": key}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_private(path, data)
    except OSError as exc:
        from aiagent.infra.config.settings import ConfigError

        reason = exc.strerror or str(exc)
        raise ConfigError(
            f"cannot save the key: the folder {path.parent} is not writable ({reason}); make it "
            "writable, set XDG_CONFIG_HOME to another folder, or set "
            f"{provider.upper()}_API_KEY in the environment instead"
        ) from None
    return path


def _write_private(path: Path, data: dict[str, object]) -> None:
    import tomli_w

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".credentials-")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(tomli_w.dumps(data))
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise

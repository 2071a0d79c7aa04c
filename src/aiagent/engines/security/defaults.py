"""`[security]` defaults from config.toml (spec Appendix B) for the security audit.

Precedence: command-line flags, then `.security.yaml` `ci.*`, then `[security]` in the
user or project config.toml. The built-in defaults layer is ignored on purpose: a plain
`aiagent security-audit` exits 0 unless the user asked for a gate.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent.engines.security.deps.osv_settings import DEFAULT_CACHE_HOURS, DEFAULT_OSV_URL
from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.finding import Severity

if TYPE_CHECKING:
    from aiagent.infra.config.settings import Settings

DEFAULT_POLICY_FILE = ".security.yaml"


@dataclass(frozen=True, slots=True)
class SecurityDefaults:
    fail_on: Severity | None = None
    custom_rules: str = ""
    source: str = "config.toml"
    osv_online: bool = False  # ask the OSV API too (--online / --offline override it)
    osv_url: str = DEFAULT_OSV_URL
    osv_cache_hours: float = DEFAULT_CACHE_HOURS


def load_defaults(settings: Settings) -> SecurityDefaults:
    """`[security]` as the user's and the project's config.toml set it (not the built-in
    layer), from the settings the front-end loaded once."""
    merged: dict[str, Any] = {}
    source = "config.toml"
    for layer in settings.layers:
        section = layer.data.get("security") if layer.name != "defaults" else None
        if isinstance(section, dict):
            merged.update(section)
            source = layer.source
    return parse_defaults(merged, source)


def parse_defaults(data: dict[str, Any], source: str) -> SecurityDefaults:
    fail_on = data.get("fail_on")
    if fail_on is not None and not isinstance(fail_on, str):
        raise SecurityConfigError(source, "security.fail_on", "must be a severity string")
    try:
        severity = Severity.parse(fail_on) if fail_on else None
    except ValueError as exc:
        raise SecurityConfigError(source, "security.fail_on", str(exc)) from None
    rules = data.get("custom_rules", "")
    if not isinstance(rules, str):
        raise SecurityConfigError(source, "security.custom_rules", "must be a path string")
    # enable_llm_analysis, max_llm_calls and llm_*: read by cli/security_audit_llm.py
    return SecurityDefaults(severity, rules, source, *_osv_online(data, source))


def _osv_online(data: dict[str, Any], source: str) -> tuple[bool, str, float]:
    online = data.get("osv_online", False)
    if not isinstance(online, bool):
        raise SecurityConfigError(source, "security.osv_online", "must be true or false")
    url = data.get("osv_url", DEFAULT_OSV_URL)
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise SecurityConfigError(source, "security.osv_url", "must be an http(s) URL")
    hours = data.get("osv_cache_hours", DEFAULT_CACHE_HOURS)
    if isinstance(hours, bool) or not isinstance(hours, int | float) or hours < 0:
        raise SecurityConfigError(source, "security.osv_cache_hours", "must be a number >= 0")
    return online, url, float(hours)


def policy_path(base: Path, explicit: Path | None, defaults: SecurityDefaults) -> Path | None:
    """The `.security.yaml` to read: --config, else custom_rules, else the default names."""
    from aiagent.engines.security.config import find_config

    if explicit is not None:
        return explicit
    if defaults.custom_rules and defaults.custom_rules != DEFAULT_POLICY_FILE:
        path = Path(defaults.custom_rules).expanduser()
        path = path if path.is_absolute() else base / path
        if not path.is_file():
            raise SecurityConfigError(defaults.source, "security.custom_rules",
                                      f"{path} does not exist")
        return path
    return find_config(base)

"""Scanners by short name → ``module:attr`` factory, imported when first used.

A factory takes the project :class:`SecurityConfig` and returns a scanner. Skills add
their own with :func:`register_scanner` (a factory callable or a dotted path).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiagent.engines.security.config import SecurityConfig

Factory = Callable[["SecurityConfig"], Any]

BUILTIN_SCANNERS: dict[str, str] = {
    "secrets": "aiagent.engines.security.scanners.secrets:SecretsScanner",
    "sast": "aiagent.engines.security.scanners.sast:SastScanner",
    "config": "aiagent.engines.security.scanners.configfiles:ConfigScanner",
    "dependencies": "aiagent.engines.security.scanners.dependencies:DependencyScanner",
    "licenses": "aiagent.engines.security.scanners.licenses:LicenseScanner",
    "apple": "aiagent.engines.security.scanners.apple:AppleScanner",
}

_EXTRA: dict[str, Factory | str] = {}


def register_scanner(name: str, factory: Factory | str) -> None:
    """Add (or replace) a scanner; used by Security Rule Skills."""
    _EXTRA[name] = factory


def unregister_scanner(name: str) -> None:
    _EXTRA.pop(name, None)


def scanner_names() -> list[str]:
    return [*BUILTIN_SCANNERS, *(n for n in _EXTRA if n not in BUILTIN_SCANNERS)]


def load_factory(name: str) -> Factory:
    target = _EXTRA.get(name) or BUILTIN_SCANNERS.get(name)
    if target is None:
        raise KeyError(f"unknown scanner {name!r}")
    if callable(target):
        return target
    module, _, attr = target.partition(":")
    factory: Factory = getattr(importlib.import_module(module), attr)
    return factory

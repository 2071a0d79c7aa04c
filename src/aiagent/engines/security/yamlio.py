"""YAML loading with the fast C loader when present, always safe."""

from __future__ import annotations

from typing import Any

import yaml

try:
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - pure-Python PyYAML build
    _Loader = yaml.SafeLoader


def load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader


def load_all_yaml(text: str) -> list[Any]:
    return [doc for doc in yaml.load_all(text, Loader=_Loader) if doc is not None]


YAMLError = yaml.YAMLError

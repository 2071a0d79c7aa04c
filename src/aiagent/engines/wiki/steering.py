"""The steering file ``.agent/wiki.yaml``: what to include or leave out, notes, audience.

Every key is checked; an unknown key or a wrong type is a :class:`WikiError` naming the file
and the key. Extra pages and notes are kept for the model passes (they do nothing in the
static wiki except appear on the overview page).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiagent.engines.wiki.errors import WikiError

STEERING_FILE = Path(".agent") / "wiki.yaml"
KEYS = ("include", "exclude", "notes", "audience", "pages", "title")


@dataclass(frozen=True, slots=True)
class ExtraPage:
    title: str
    instructions: str


@dataclass(frozen=True, slots=True)
class Steering:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    audience: str = ""
    title: str = ""
    pages: tuple[ExtraPage, ...] = field(default=())


def load_steering(root: Path) -> Steering:
    path = root / STEERING_FILE
    if not path.is_file():
        return Steering()
    from aiagent.engines.security.yamlio import YAMLError, load_yaml

    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise WikiError(f"{path}: cannot read: {exc.__class__.__name__}") from None
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise WikiError(f"{path}{where}: invalid YAML") from None
    return parse_steering(data if data is not None else {}, str(path))


def parse_steering(data: Any, src: str) -> Steering:
    if not isinstance(data, dict):
        raise WikiError(f"{src}: expected a mapping of {', '.join(KEYS)}")
    unknown = sorted(str(k) for k in data if k not in KEYS)
    if unknown:
        raise WikiError(f"{src}: unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
    return Steering(
        include=_strings(data, "include", src), exclude=_strings(data, "exclude", src),
        notes=_strings(data, "notes", src), audience=_string(data, "audience", src),
        title=_string(data, "title", src), pages=_pages(data.get("pages"), src),
    )


def _strings(data: dict[str, Any], key: str, src: str) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise WikiError(f"{src}: {key}: expected a list of strings")
    return tuple(value)


def _string(data: dict[str, Any], key: str, src: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise WikiError(f"{src}: {key}: expected a string")
    return value


def _pages(value: Any, src: str) -> tuple[ExtraPage, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise WikiError(f"{src}: pages: expected a list of {{title, instructions}}")
    pages = []
    for i, item in enumerate(value):
        if not isinstance(item, dict) or not isinstance(item.get("title"), str):
            raise WikiError(f"{src}: pages[{i}]: expected a mapping with a string title")
        pages.append(ExtraPage(item["title"], str(item.get("instructions", ""))))
    return tuple(pages)

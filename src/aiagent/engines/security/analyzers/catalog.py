"""The analyzers: name, rule-id prefix, system prompt and findings schema (package data)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from string import Template
from typing import Any

from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.yamlio import load_yaml


@dataclass(frozen=True, slots=True)
class Analyzer:
    name: str
    id: str  # prefix of the rule id of its findings: LLM-TAINT -> LLM-TAINT-CWE-89
    title: str
    system: str  # the analyzer's prompt + common.md with the schema filled in
    schema: dict[str, Any]


def _text(name: str) -> str:
    return resources.files(__package__).joinpath("data", name).read_text(encoding="utf-8")


@cache
def catalog() -> tuple[Analyzer, ...]:
    data = load_yaml(_text("analyzers.yaml"))
    common = Template(_text("common.md"))
    out = []
    for raw in data["analyzers"]:
        schema = json.loads(_text(raw["schema"]))
        system = _text(raw["prompt"]).rstrip() + "\n\n" + common.substitute(
            schema=json.dumps(schema, indent=1))
        out.append(Analyzer(raw["name"], raw["id"], raw["title"], system, schema))
    return tuple(out)


def names() -> list[str]:
    return [a.name for a in catalog()]


def select(wanted: tuple[str, ...] | list[str], source: str = "--llm-analyzers") -> list[Analyzer]:
    """The analyzers named (all when none), in catalog order; an unknown name is an error."""
    known = {a.name: a for a in catalog()}
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise SecurityConfigError(source, unknown[0],
                                  f"unknown analyzer (known: {', '.join(known)})")
    return [a for a in catalog() if not wanted or a.name in wanted]

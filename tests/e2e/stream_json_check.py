"""Shared by the stream-json and budget tests: every stdout line checked against the
documented schema (docs/stream-json.schema.json)."""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from aiagent.testing import FakeLLM

AIAGENT = str(Path(sys.executable).with_name("aiagent"))
SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "stream-json.schema.json"
MODEL = "claude-sonnet-4-5"  # a model with a known price: cost is computed


@cache
def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA.read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def lines_of(stdout: str) -> list[dict[str, Any]]:
    """Every line of ``stdout`` parsed and valid against the schema (asserted)."""
    assert stdout.endswith("\n"), stdout[-200:]
    out = []
    for number, text in enumerate(stdout.splitlines(), 1):
        line = json.loads(text)
        errors = sorted(validator().iter_errors(line), key=str)
        assert not errors, f"line {number} {text[:300]}: {errors[0].message}"
        out.append(line)
    return out


def anthropic_env(fake: FakeLLM) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456"}

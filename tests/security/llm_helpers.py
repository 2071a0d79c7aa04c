"""Helpers for the LLM-phase tests: scripted analyzer answers and what a request carried."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aiagent.testing import FakeLLM, Turn

# The injection goes through a helper in another module (queries.build_query concatenates):
# the static engine follows values within one function only, so this finding is the LLM's.
APP = (
    "import sqlite3\n"
    "from flask import Flask, request\n"
    "from queries import build_query\n"
    "app = Flask(__name__)\n"
    "\n"
    "\n"
    "def find_user(db, uid):\n"
    "    query = build_query(uid)\n"
    "    return db.execute(query).fetchall()\n"
    "\n"
    "\n"
    "@app.route(\"/user\")\n"
    "def user():\n"
    "    return str(find_user(sqlite3.connect(\"app.db\"), request.args[\"id\"]))\n"
)
CLOUD = (
    "import boto3\n"
    "\n"
    "AWS_KEY = \"AKIAIOSFODNN7EXAMPLF\"\n"
    "\n"
    "def client():\n"
    "    return boto3.client(\"s3\", aws_access_key_id=AWS_KEY)\n"
)


def finding(file: str = "app.py", start: int = 8, end: int = 9, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "file": file, "start_line": start, "end_line": end, "function": "find_user",
        "title": "SQL injection through find_user",
        "description": "request.args['id'] flows from user() into find_user and into db.execute.",
        "severity": "high", "confidence": 0.9, "category": "injection", "cwe": "CWE-89",
    }
    out.update(extra)
    return out


def answer(*findings: dict[str, Any], usage: tuple[int, int] = (1000, 100)) -> Turn:
    return Turn(text=json.dumps({"findings": list(findings)}), usage=usage)


def make_project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "app.py").write_text(APP)
    (root / "cloud.py").write_text(CLOUD)
    return root


def anthropic_env(fake: FakeLLM) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456"}


def sent_text(request: dict[str, Any]) -> str:
    """Every string in the request's messages (the files and hints), joined."""
    out: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(request["json"].get("messages", []))
    return "\n".join(out)

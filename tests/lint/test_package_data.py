"""Every data file under src/aiagent ships in the wheel (a non-editable install needs them)."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_data_file_matches_a_package_data_pattern() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["*"]
    src = ROOT / "src" / "aiagent"
    missing = []
    for path in src.rglob("*"):
        if not path.is_file() or path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(src).as_posix()
        if not any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(path.name, p) for p in patterns):
            missing.append(rel)
    assert missing == [], f"add patterns to [tool.setuptools.package-data] for {missing}"

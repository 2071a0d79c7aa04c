"""Manifests found valid are remembered by content hash, so discovery skips the JSON
schema check (and the jsonschema import) for them; invalid ones are checked and
reported every time, a changed manifest is checked again, a broken cache is ignored."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

GOOD = {"name": "good-one", "version": "1.0.0", "description": "A valid skill",
        "types": ["prompt"], "prompt": {"system_prompt": "Be brief."}}
BAD = {**GOOD, "name": "bad-one", "types": ["nonsense"]}

DISCOVER = """
import json, sys
from pathlib import Path
from aiagent.agent.skills.loader import discover, Source
found = discover([Source("user", Path(sys.argv[1]))])
print(json.dumps({"ok": sorted(found.skills), "broken": [b.error for b in found.broken],
                  "jsonschema": "jsonschema" in sys.modules}))
"""


def _skills(root: Path) -> Path:
    for data in (GOOD, BAD):
        folder = root / "skills" / data["name"]
        folder.mkdir(parents=True)
        (folder / "SKILL.yaml").write_text(yaml.safe_dump(data))
    return root / "skills"


def _discover(folder: Path, env: dict[str, str]) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", DISCOVER, str(folder)], env=env, text=True,
                         capture_output=True, check=True, timeout=60).stdout
    return json.loads(out)


def _cache_file(env: dict[str, str]) -> Path:
    return Path(env["XDG_CACHE_HOME"]) / "aiagent" / "skills" / "valid-manifests.json"


def test_a_valid_manifest_is_checked_once_an_invalid_one_every_time(
        clean_env: dict[str, str], tmp_path: Path) -> None:
    folder = _skills(tmp_path)
    first = _discover(folder, clean_env)
    assert first["ok"] == ["good-one"] and first["jsonschema"] is True
    assert len(json.loads(_cache_file(clean_env).read_text())["valid"]) == 1
    second = _discover(folder, clean_env)
    assert second["ok"] == ["good-one"]
    assert second["broken"] == first["broken"] and "nonsense" in str(second["broken"])
    assert len(json.loads(_cache_file(clean_env).read_text())["valid"]) == 1


def test_only_known_valid_manifests_skip_the_check(
        clean_env: dict[str, str], tmp_path: Path) -> None:
    folder = tmp_path / "skills" / "good-one"
    folder.mkdir(parents=True)
    (folder / "SKILL.yaml").write_text(yaml.safe_dump(GOOD))
    _discover(folder.parent, clean_env)
    again = _discover(folder.parent, clean_env)
    assert again["ok"] == ["good-one"] and again["jsonschema"] is False  # not even imported
    (folder / "SKILL.yaml").write_text(yaml.safe_dump({**GOOD, "types": ["nonsense"]}))
    changed = _discover(folder.parent, clean_env)
    assert changed["ok"] == [] and "nonsense" in str(changed["broken"])


def test_a_broken_or_forged_cache_file_is_not_trusted_blindly(
        clean_env: dict[str, str], tmp_path: Path) -> None:
    folder = _skills(tmp_path)
    cache = _cache_file(clean_env)
    cache.parent.mkdir(parents=True)
    cache.write_text("{not json")
    assert _discover(folder, clean_env)["ok"] == ["good-one"]  # a broken file: checked again
    cache.write_text(json.dumps({"valid": ["../../etc/passwd", 42, "0" * 64]}))
    result = _discover(folder, clean_env)
    assert result["ok"] == ["good-one"] and "nonsense" in str(result["broken"])

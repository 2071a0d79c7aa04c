"""Arrows point down: the import-layer contract in pyproject.toml, checked by import-linter.

The contract has no list of ignored imports, and function-local and TYPE_CHECKING imports
count as much as top-level ones (a lazy import is for start-up time, not for hiding an arrow
that points up).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(cwd: Path, pythonpath: Path) -> subprocess.CompletedProcess[str]:
    assert LINT_IMPORTS.exists(), f"needs import-linter (the test extra): {LINT_IMPORTS}"
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    contracts: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def test_the_layers_contract_is_kept() -> None:
    proc = _lint_imports(ROOT, ROOT / "src")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    kept = len(_contracts())
    assert kept >= 5 and f"{kept} kept, 0 broken" in proc.stdout, proc.stdout


def test_the_contract_covers_every_package_and_ignores_nothing() -> None:
    contracts = _contracts()
    for layers in contracts:
        assert layers["type"] == "layers"
        assert layers["exhaustive"] is True
        assert "ignore_imports" not in layers
        assert "exhaustive_ignores" not in layers
    top = next(c for c in contracts if c["containers"] == ["aiagent"])
    assert top["layers"][-1] == "contracts"
    # every folder that groups packages is itself a container with its own order
    groups = {str(c["containers"][0]).removeprefix("aiagent.") for c in contracts} - {"aiagent"}
    folders = {p.name for p in (ROOT / "src" / "aiagent").iterdir()
               if p.is_dir() and (p / "__init__.py").exists()
               and any(q.is_dir() and (q / "__init__.py").exists() for q in p.iterdir())}
    assert folders <= groups, folders - groups
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]
    assert not config.get("exclude_type_checking_imports", False)


def _copy_of_the_package(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "src" / "aiagent", tmp_path / "src" / "aiagent",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path / "src"


def test_a_function_local_upward_import_breaks_the_contract(tmp_path: Path) -> None:
    src = _copy_of_the_package(tmp_path)
    unchanged = _lint_imports(tmp_path, src)
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr

    tools = src / "aiagent" / "agent" / "tools" / "files.py"
    tools.write_text(tools.read_text("utf-8") + (
        "\n\ndef _hidden() -> None:\n    from aiagent.agent.core import loop  # noqa: F401\n"))
    proc = _lint_imports(tmp_path, src)
    assert proc.returncode != 0, proc.stdout
    assert "aiagent.agent.tools is not allowed to import aiagent.agent.core" in proc.stdout, proc.stdout
    assert "aiagent.agent.tools.files -> aiagent.agent.core.loop" in proc.stdout, proc.stdout


def test_a_new_top_level_package_must_be_placed_in_the_layers(tmp_path: Path) -> None:
    src = _copy_of_the_package(tmp_path)
    (src / "aiagent" / "newroom").mkdir()
    (src / "aiagent" / "newroom" / "__init__.py").write_text("")
    proc = _lint_imports(tmp_path, src)
    assert proc.returncode != 0, proc.stdout
    assert "aiagent.newroom" in proc.stdout, proc.stdout


def test_contracts_import_only_the_standard_library_and_each_other() -> None:
    stray = []
    for path in sorted((ROOT / "src" / "aiagent" / "contracts").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top not in sys.stdlib_module_names and not name.startswith("aiagent.contracts"):
                    stray.append(f"{path.name}:{node.lineno} imports {name}")
    assert stray == []

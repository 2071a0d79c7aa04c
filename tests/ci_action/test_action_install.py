"""The action's install step, run alone with a stand-in ``python3`` on PATH that records
what it is asked to do (no real venv, no pip, no network)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ci_helpers import ROOT, ActionCase
from review_helpers import FakeGitHub

FAKE_PYTHON = """#!/bin/bash
printf '%s\\n' "$*" >> "$FAKE_PY_LOG"
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then mkdir -p "$3/bin"; cp "$0" "$3/bin/python"; fi
"""


def run_install(case: ActionCase, tmp_path: Path, inputs: dict[str, str]):
    fake = tmp_path / "fakebin"
    fake.mkdir(exist_ok=True)
    (fake / "python3").write_text(FAKE_PYTHON)
    (fake / "python3").chmod(0o755)
    log = tmp_path / "python.log"
    env = {"PATH": f"{fake}:/usr/bin:/bin", "FAKE_PY_LOG": str(log)}
    result = case.run({"install": "true", **inputs}, env=env, first=1)
    return result, log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize(("inputs", "spec"), [
    ({}, str(ROOT)),  # the action's own checkout: the action tests the code it ships
    ({"version": "1.2.3"}, "aiagent==1.2.3"),
    ({"version": "1.2.3", "install-from": "git+https://example.org/aiagent@v1"},
     "git+https://example.org/aiagent@v1"),
])
def test_install_what(case: ActionCase, tmp_path: Path, inputs: dict[str, str], spec: str) -> None:
    result, calls = run_install(case, tmp_path, inputs)
    assert not result.failed, result.log
    venv = case.temp / "aiagent-venv"
    assert calls == [f"-m venv {venv}",
                     f"-m pip install --quiet --disable-pip-version-check {spec}"]
    assert result.steps[0].outputs == {"aiagent": f"{venv}/bin/aiagent"}


def test_install_refuses_an_option_as_the_package(case: ActionCase, tmp_path: Path) -> None:
    result, calls = run_install(case, tmp_path, {"install-from": "--index-url=https://evil"})
    assert calls == [] and result.steps[0].rc == 2
    assert result.annotations == [("error", "aiagent: version/install-from must not start with '-'")]


def test_install_false_needs_aiagent_on_path(case: ActionCase, tmp_path: Path,
                                            github: FakeGitHub) -> None:
    result = case.run({"install": "false"}, env={"PATH": "/usr/bin:/bin"}, first=1)
    assert result.steps[0].rc == 2
    assert result.annotations == [
        ("error", "aiagent: install is false but there is no aiagent command on PATH")]
    result = case.run({"install": "false"}, first=1)
    assert not result.failed and result.steps[0].outputs["aiagent"].endswith("/aiagent")

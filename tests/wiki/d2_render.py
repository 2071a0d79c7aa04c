"""Compile and render D2 blocks with the real D2 (its WebAssembly build, ``@terrastruct/d2``
from npm, installed into ``tests/wiki/d2`` by ``.ci/run``) under Node. Nothing is fetched."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

D2_DIR = Path(__file__).parent / "d2"
D2_JS = D2_DIR / "node_modules" / "@terrastruct" / "d2" / "package.json"


def node() -> str | None:
    return shutil.which("node")


def render_all(blocks: list[str]) -> list[str]:
    """'ok' or the error, per block."""
    exe = node()
    assert exe is not None and D2_JS.is_file()
    proc = subprocess.run([exe, str(D2_DIR / "render.mjs")], input=json.dumps(blocks), capture_output=True,
                          text=True, timeout=600, cwd=D2_DIR)
    assert proc.returncode == 0, f"node render.mjs failed: {proc.stderr[-500:]}"
    return list(json.loads(proc.stdout.strip().splitlines()[-1]))

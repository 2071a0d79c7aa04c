"""The quality corpus (bench/corpus): recall per family, fixed twins and clean code stay quiet."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "bench_security_quality.py"


def test_quality_corpus_recall_and_noise() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--json", "--no-peers"],
                          capture_output=True, text=True, timeout=300, check=True)
    ours = json.loads(proc.stdout)["tools"]["aiagent"]
    families = ours["families"]
    assert all(f["labels"] >= 3 for f in families.values()), families
    for name, f in families.items():
        assert f["recall"] >= 0.9, (name, f)
        assert f["fp_rate"] <= 0.5, (name, f)
    assert ours["clean"]["lines"] > 300 and ours["clean"]["severe"] == 0, ours["clean"]

"""Precision and recall on the labeled corpus stay above a floor (bench/security_corpus.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "security_corpus.py"
FLOOR = {"sast": (0.9, 0.9), "secrets": (0.9, 0.9), "config": (0.9, 0.9)}


def test_corpus_precision_and_recall() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--json"], capture_output=True,
                          text=True, timeout=120, check=True)
    scores = json.loads(proc.stdout)
    for scanner, (precision, recall) in FLOOR.items():
        got = scores[scanner]
        assert got["precision"] >= precision, (scanner, got)
        assert got["recall"] >= recall, (scanner, got)
        assert got["tp"] >= 5, (scanner, got)

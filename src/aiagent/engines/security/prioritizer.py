"""Risk score per file (spec §3.7 signals table), for the LLM phase's budget."""

from __future__ import annotations

import time
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from aiagent.engines.security.discovery import Inventory
from aiagent.engines.security.finding import Finding
from aiagent.engines.security.regexsafe import PatternSet, SafePattern
from aiagent.engines.security.rulepack import read_pack_text
from aiagent.engines.security.yamlio import load_yaml

CODE_LANGUAGES = frozenset({
    "python", "javascript", "typescript", "tsx", "go", "java", "kotlin", "ruby", "php",
    "csharp", "swift", "objective-c", "rust", "c", "cpp",
})


@lru_cache(maxsize=1)
def _signals() -> tuple[dict[str, Any], tuple[tuple[str, int, SafePattern], ...], PatternSet]:
    data = load_yaml(read_pack_text("risk_signals.yaml"))
    compiled = tuple((s["name"], int(s["weight"]), SafePattern("(?i)" + s["regex"]))
                     for s in data["signals"])
    # all signals in one pass over the file; each alone where the set cannot
    together = PatternSet([p.pattern.encode() for _, _, p in compiled],
                          lambda i, text: compiled[i][2].search(text))
    return data, compiled, together


def prepare_scoring() -> None:
    """Load and compile the risk signals now (they are cached for the process)."""
    _signals()


def score_text(data: bytes) -> tuple[int, list[str]]:
    _, signals, together = _signals()
    found = together.present(data)
    hits = [(name, weight) for i, (name, weight, _) in enumerate(signals) if i in found]
    return sum(w for _, w in hits), [n for n, _ in hits]


def score_files(inventory: Inventory, findings: Iterable[Finding]) -> dict[str, int]:
    """Scores for code files (highest first); flagged and recently changed files score more."""
    config = _signals()[0]
    flagged = {f.location.file for f in findings}
    recent_cutoff = time.time() - int(config["recent_days"]) * 86400
    scores: dict[str, int] = {}
    for file in inventory.files:
        if file.language not in CODE_LANGUAGES:
            continue
        try:
            data = file.path.read_bytes()
            mtime = file.path.stat().st_mtime
        except OSError:
            continue
        score, _ = score_text(data)
        score += int(config["flagged_weight"]) if file.rel in flagged else 0
        score += int(config["recent_weight"]) if mtime >= recent_cutoff else 0
        if score:
            scores[file.rel] = score
    return dict(sorted(scores.items(), key=lambda kv: (-kv[1], kv[0])))

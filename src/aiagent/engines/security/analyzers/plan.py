"""Which files go to the model (FR-4.12): the prioritizer's ranking, cut by a token budget.

Files are taken strictly in ranking order. Each is sent with numbered lines; files are
packed into batches of at most ``batch_tokens``, and every analyzer sees every batch, so a
batch costs ``analyzers x (system prompt + batch)`` estimated tokens. The first file whose
cost would go past the budget ends the plan: lower-ranked files are never sent instead of a
higher-ranked one. A file larger than one batch is left out on its own (and said so).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

CHARS_PER_TOKEN = 4
DEFAULT_BUDGET = 100_000
DEFAULT_BATCH_TOKENS = 12_000
FILE_OVERHEAD = 20  # the <file> wrapper, in tokens


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@dataclass(frozen=True, slots=True)
class SourceText:
    rel: str
    lines: tuple[str, ...]
    numbered: str  # the text as sent: "12| code" per line
    tokens: int


@dataclass(slots=True)
class Batch:
    files: list[SourceText] = field(default_factory=list)
    tokens: int = 0


@dataclass(slots=True)
class Plan:
    batches: list[Batch] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # past the budget
    too_large: list[str] = field(default_factory=list)  # bigger than one batch
    unreadable: list[str] = field(default_factory=list)
    estimated_tokens: int = 0

    @property
    def sent(self) -> list[str]:
        return [f.rel for b in self.batches for f in b.files]


def read_source(root: Path, rel: str) -> SourceText | None:
    """The file ``rel`` under ``root`` (never outside it, no binary), numbered; else None."""
    path = (root / rel).resolve()
    if not path.is_relative_to(root.resolve()) or not path.is_file():
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\x00" in data[:8192]:
        return None
    lines = tuple(data.decode("utf-8", errors="replace").splitlines())
    width = len(str(len(lines)))
    numbered = "\n".join(f"{i:>{width}}| {line}" for i, line in enumerate(lines, 1))
    return SourceText(rel, lines, numbered, estimate_tokens(numbered) + FILE_OVERHEAD)


def make_plan(root: Path, ranked: Iterable[str], *, analyzers: int, prompt_tokens: int,
              budget: int = DEFAULT_BUDGET,
              batch_tokens: int = DEFAULT_BATCH_TOKENS) -> Plan:
    plan = Plan()
    queue = list(ranked)
    for index, rel in enumerate(queue):
        source = read_source(root, rel)
        if source is None:
            plan.unreadable.append(rel)
            continue
        if source.tokens > batch_tokens:
            plan.too_large.append(rel)
            continue
        current = plan.batches[-1] if plan.batches else None
        fits = current is not None and current.tokens + source.tokens <= batch_tokens
        cost = analyzers * (source.tokens + (0 if fits else prompt_tokens))
        if plan.estimated_tokens + cost > budget:
            plan.left_out = queue[index:]
            break
        if current is None or not fits:
            current = Batch()
            plan.batches.append(current)
        current.files.append(source)
        current.tokens += source.tokens
        plan.estimated_tokens += cost
    return plan

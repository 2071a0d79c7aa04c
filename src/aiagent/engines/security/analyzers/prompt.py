"""The user message for one batch: what static scanners found there, then the files."""

from __future__ import annotations

import json
from collections.abc import Sequence

from aiagent.engines.security.analyzers.plan import Batch
from aiagent.engines.security.finding import Finding

MAX_HINTS = 30
HINT_TITLE_CHARS = 100


def batch_message(batch: Batch, static: Sequence[Finding]) -> str:
    files = {f.rel for f in batch.files}
    hints = [f for f in static if f.location.file in files][:MAX_HINTS]
    parts = [f"Review these {len(batch.files)} file(s) of the project."]
    if hints:
        parts += ["", "Already reported by the static scanners:"]
        parts += [_hint(f) for f in hints]
    for source in batch.files:
        parts += ["", f"<file path={json.dumps(source.rel)} lines=\"{len(source.lines)}\">",
                  source.numbered, "</file>"]
    return "\n".join(parts) + "\n"


def _hint(f: Finding) -> str:
    loc = f.location
    cwe = f" ({f.cwe})" if f.cwe else ""
    return f"- {loc.file}:{loc.start_line} {f.id}{cwe}: {f.title[:HINT_TITLE_CHARS]}"

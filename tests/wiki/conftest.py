"""tests/wiki: the helpers beside the tests (mermaid_render, make_repo) import by name."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

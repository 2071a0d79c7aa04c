"""A scanner a Security Rule Skill registered, seen by the engine as a ProjectScanner.

The engine knows nothing of the skill runtime: the front-end gives each adapter a
``run`` callable that sends the scanner's input to the skill (through the runtime, so
the skill's permissions and limits apply) and returns what the skill answered. The
adapter turns that answer into findings; a failing scanner becomes a warning on the
audit, never a failed audit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from aiagent.engines.security.skillfindings import to_findings

if TYPE_CHECKING:
    from aiagent.engines.security.config import SecurityConfig
    from aiagent.engines.security.discovery import Inventory
    from aiagent.engines.security.finding import Finding
    from aiagent.engines.security.scanners.base import ScanContext

Runner = Callable[[Mapping[str, Any]], Any]
MAX_PROBLEMS = 5


class SkillScannerAdapter:
    """``name`` is ``SKILL/SCANNER``; register it with ``register_scanner(name, adapter.factory)``."""

    def __init__(self, skill: str, scanner: str, run: Runner, description: str = "") -> None:
        self.skill = skill
        self.scanner = scanner
        self.name = f"{skill}/{scanner}"
        self.description = description
        self._run = run

    def factory(self, config: SecurityConfig) -> SkillScannerAdapter:
        return self

    def scan_project(self, inventory: Inventory, ctx: ScanContext) -> list[Finding]:
        try:
            raw = self._run(scanner_input(inventory))
        except Exception as exc:  # a skill's failure must not lose the audit
            ctx.warnings.append(f"skill {self.skill}: scanner {self.scanner}: {_one_line(exc)}")
            return []
        findings, problems = to_findings(raw, self.skill, self.scanner, str(inventory.root))
        ctx.warnings.extend(problems[:MAX_PROBLEMS])
        if len(problems) > MAX_PROBLEMS:
            ctx.warnings.append(f"skill {self.skill}: scanner {self.scanner}: "
                                f"{len(problems) - MAX_PROBLEMS} more findings dropped")
        return findings


def scanner_input(inventory: Inventory) -> dict[str, Any]:
    """What a skill scanner receives: the audited folder and the files to look at."""
    return {
        "root": str(inventory.root),
        "files": [{"path": f.rel, "language": f.language} for f in inventory.files],
    }


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:400]

"""Discovery's results as the runtime sees them: which skills exist, which are broken,
held back or disabled, and which can be used here (platform, agent version)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from aiagent import __version__
from aiagent.agent.skills.loader import BrokenSkill, Discovery, SkillEntry
from aiagent.agent.skills.manifest import Manifest
from aiagent.agent.skills.versions import VersionError, satisfies

PLATFORM = {"linux": "linux", "darwin": "darwin", "win32": "windows"}.get(sys.platform, sys.platform)


@dataclass(frozen=True, slots=True)
class RuleFile:
    """A rule pack a security-rule skill contributes (for the security engine)."""

    skill: str
    kind: str  # sast | overrides
    path: Path


class SkillCatalog:
    def __init__(self, discovery: Discovery, disabled: Iterable[str] = ()) -> None:
        self.entries: dict[str, SkillEntry] = discovery.skills
        self.broken: list[BrokenSkill] = discovery.broken
        self.held: dict[str, SkillEntry] = discovery.held  # skills of an untrusted folder
        self.disabled = set(disabled)

    def manifest(self, name: str) -> Manifest:
        entry = self.entries.get(name)
        if entry is None:
            raise LookupError(self.missing(name, f"no skill named {name!r}"))
        return entry.manifest

    def find(self, name: str) -> Manifest | None:
        """``name``'s manifest, or None (no such skill)."""
        entry = self.entries.get(name)
        return entry.manifest if entry is not None else None

    def missing(self, name: str, lead: str) -> str:
        """Why ``name`` is not in the catalog: broken, held back, or unknown (``lead``)."""
        broken = next((b for b in self.broken if b.name == name), None)
        if broken is not None:
            return f"skill {name} cannot load: {broken.error}"
        if name in self.held:
            return (f"skill {name} came with this folder, which is not trusted "
                    "(trust it with `aiagent trust` or --trust)")
        return f"{lead} (known: {', '.join(sorted(self.entries)) or 'none'})"

    def usable(self, m: Manifest) -> str | None:
        """Why ``m`` cannot be used here (disabled, wrong platform or agent), or None."""
        if m.name in self.disabled:
            return f"skill {m.name} is disabled (see [skills] disabled, or `aiagent skill enable {m.name}`)"
        if m.platforms and PLATFORM not in m.platforms:
            return f"skill {m.name} supports {', '.join(m.platforms)}, not {PLATFORM}"
        try:
            if m.agent_version and not satisfies(__version__, m.agent_version):
                return f"skill {m.name} needs aiagent {m.agent_version} (this is {__version__})"
        except VersionError:
            return None
        return None

    def available_names(self) -> list[str]:
        return sorted(n for n, e in self.entries.items() if self.usable(e.manifest) is None)

    def usable_manifests(self) -> dict[str, Manifest]:
        return {n: e.manifest for n, e in self.entries.items() if self.usable(e.manifest) is None}

    def uses_backend(self, backend: str) -> bool:
        """Whether some usable skill that is not built in runs on ``backend`` (the built-in
        workflows start their backend when first used, so a session does not pay for it)."""
        return any((impl := self.entries[n].manifest.implementation) is not None and impl.backend == backend
                   and self.entries[n].source != "builtin" for n in self.available_names())

    def security_rules(self) -> list[RuleFile]:
        """Rule packs of every usable security-rule skill (data only: no activation needed)."""
        found: list[RuleFile] = []
        for name in self.available_names():
            m = self.entries[name].manifest
            rules = m.security_rules
            if rules is None or "security-rule" not in m.types:
                continue
            if rules.sast_rules_file:
                found.append(RuleFile(name, "sast", m.root / rules.sast_rules_file))
            if rules.overrides_file:
                found.append(RuleFile(name, "overrides", m.root / rules.overrides_file))
        return found

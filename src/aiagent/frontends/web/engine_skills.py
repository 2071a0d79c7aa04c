"""Before a hosted engine starts: the project's skills where that engine discovers them.

``skills_engine`` (claude, codex, gemini) uses the skills distribution's export, exactly
as ``aiagent skill export --engine NAME`` (a folder we did not write is left alone);
``skills_dir`` copies them, the same way, into a project folder of another engine's;
neither (or ``none``) places nothing. Returns one line saying what was done.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiagent.infra.config import paths


def engine_folder(spec: Any, root: Path, home: Path) -> tuple[str, Path] | None:
    """(label, folder) the skills go to, or None."""
    from aiagent.agent.skills.distribution.export import engine_dirs

    if spec.skills_engine and spec.skills_engine != "none":
        dirs = engine_dirs([spec.skills_engine], "project", root, home)
        return next(iter(dirs.items()))
    if spec.skills_dir and not spec.skills_engine:
        folder = Path(spec.skills_dir)
        if folder.is_absolute() or ".." in folder.parts:
            raise ValueError(f"web.engines.{spec.name}.skills_dir: a folder inside the project")
        return spec.name, root / folder
    return None


def project_skills(settings: Any, root: Path, home: Path) -> list[Any]:
    """The enabled skills' manifests, as ``aiagent skill export`` picks them."""
    from aiagent.agent.skills.distribution.export import aiagent_skills, exportable

    return exportable(*aiagent_skills(settings, root, home))


def place_skills(spec: Any, settings: Any) -> str:
    from aiagent.agent.skills.distribution.export import export

    root = paths.project_root(settings.workspace)
    home = Path(settings.env.get("HOME") or Path.home())
    target = engine_folder(spec, root, home)
    if target is None:
        return f"engine {spec.name}: skills not placed (no skills_engine or skills_dir configured)"
    label, folder = target
    manifests = project_skills(settings, root, home)
    if not manifests:
        return f"engine {spec.name}: no skills to place"
    out = export(manifests, {label: folder})[0]
    skipped = f", {len(out.skipped)} skipped" if out.skipped else ""
    return (f"engine {spec.name}: skills in {folder}: {len(out.written)} written, "
            f"{len(out.unchanged)} unchanged{skipped}")

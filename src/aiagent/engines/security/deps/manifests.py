"""`package.json` dependencies: resolved by the lockfile beside it, else checked as ranges.

With a `package-lock.json`, `npm-shrinkwrap.json`, `yarn.lock` or `pnpm-lock.yaml` in the
same folder the lockfile's exact versions are what gets scanned, so the manifest adds
nothing. Without one, each declared range is checked at the lowest version it allows (its
floor: `^4.17.0` → 4.17.0) and the finding says it is about a range. Specs that name no
version (`*`, `latest`, git/file/workspace URLs) are counted in a warning, not ignored.
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath

from aiagent.engines.security.deps.packages import Package

NPM_LOCKFILES = ("package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml")
DEP_KEYS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")


def unresolved_manifests(rels: list[str]) -> list[str]:
    """The package.json files with no npm lockfile beside them."""
    present = set(rels)
    out = []
    for rel in rels:
        path = PurePosixPath(rel)
        if path.name != "package.json" or "node_modules" in path.parts:
            continue
        folder = "" if str(path.parent) == "." else f"{path.parent}/"
        if not any(f"{folder}{lock}" in present for lock in NPM_LOCKFILES):
            out.append(rel)
    return out


def parse_package_json(rel: str, text: str) -> tuple[list[Package], list[str]]:
    """(packages at their range floors, names whose spec has no version to check)."""
    data = json.loads(text)
    if not isinstance(data, dict):
        return [], []
    lines = text.splitlines()
    packages: list[Package] = []
    unchecked: list[str] = []
    for key in DEP_KEYS:
        deps = data.get(key)
        if not isinstance(deps, dict):
            continue
        for name, spec in deps.items():
            floor = range_floor(spec) if isinstance(spec, str) else None
            if floor is None:
                unchecked.append(name)
                continue
            packages.append(Package("npm", name, floor, rel, _line(lines, name), spec=spec))
    return packages, unchecked


def range_floor(spec: str) -> str | None:
    """The lowest version an npm range allows, or None when it names none."""
    from univers.version_range import NpmVersionRange

    spec = spec.strip()
    if not spec or spec in {"*", "x", "latest", "next"} or ":" in spec or "/" in spec:
        return None
    try:
        constraints = NpmVersionRange.from_native(spec).constraints  # type: ignore[no-untyped-call]  # univers: unannotated
    except Exception:  # univers raises several types for specs it cannot read
        return None
    floors = [c.version for c in constraints if c.comparator in {">=", "="}]
    if not floors or any(c.comparator in {">", "*"} for c in constraints):
        return None
    return str(min(floors))


def _line(lines: list[str], name: str) -> int:
    needle = f'"{name}"'
    return next((no for no, line in enumerate(lines, 1) if needle in line), 0)

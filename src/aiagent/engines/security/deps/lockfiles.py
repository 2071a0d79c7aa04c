"""Lockfile parsers. Each takes (repo-relative path, text) and returns packages."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

from aiagent.engines.security.deps.packages import Package

Parser = Callable[[str, str], list[Package]]
REQ_LINE = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*===?\s*([^\s;#,]+)")


def parse_requirements(rel: str, text: str) -> list[Package]:
    out = []
    for no, line in enumerate(text.splitlines(), 1):
        m = REQ_LINE.match(line)
        if m:
            out.append(Package("PyPI", m.group(1), m.group(2), rel, no))
    return out


def _line_finder(text: str) -> Callable[[str], int]:
    def find(needle: str) -> int:
        at = text.find(needle)
        return text.count("\n", 0, at) + 1 if at >= 0 else 0

    return find


def parse_package_lock(rel: str, text: str) -> list[Package]:
    data = json.loads(text)
    find = _line_finder(text)
    out: dict[tuple[str, str], Package] = {}
    for path, info in (data.get("packages") or {}).items():  # lockfileVersion 2 and 3
        if not path or not isinstance(info, dict) or info.get("link"):
            continue
        name = info.get("name") or path.rsplit("node_modules/", 1)[-1]
        if info.get("version"):
            out[(name, info["version"])] = Package("npm", name, info["version"], rel, find(f'"{path}"'))
    if not out:  # lockfileVersion 1
        _walk_v1(data.get("dependencies") or {}, rel, find, out)
    return list(out.values())


def _walk_v1(deps: dict[str, Any], rel: str, find: Callable[[str], int],
             out: dict[tuple[str, str], Package]) -> None:
    for name, info in deps.items():
        if isinstance(info, dict) and info.get("version"):
            out[(name, info["version"])] = Package("npm", name, info["version"], rel, find(f'"{name}"'))
            _walk_v1(info.get("dependencies") or {}, rel, find, out)


def parse_yarn_lock(rel: str, text: str) -> list[Package]:
    """yarn v1 and berry: `"name@range":` headers followed by `version`."""
    out, names, start = [], [], 0
    for no, line in enumerate(text.splitlines(), 1):
        if line and not line[0].isspace() and line.rstrip().endswith(":") and not line.startswith("#"):
            names = [_yarn_name(s) for s in line.rstrip(":").split(",")]
            start = no
        m = re.match(r'^\s+version:?\s+"?([^"\s]+)"?', line)
        if m and names:
            for name in dict.fromkeys(names):
                if name and name != "__metadata":
                    out.append(Package("npm", name, m.group(1), rel, start))
            names = []
    return out


def _yarn_name(spec: str) -> str:
    spec = spec.strip().strip('"')
    at = spec.find("@", 1)
    return spec[:at] if at > 0 else spec


PNPM_LINE = re.compile(r"^\s{2}['\"]?/?((?:@[^/@\s]+/)?[^/@\s:'\"]+)[@/]([0-9][^:('\"\s]*)")
GO_MOD_LINE = re.compile(r"^\s*(?:require\s+)?([\w.\-/~]+\.[\w.\-/~]+)\s+(v[0-9][^\s/]*)")
GEM_LINE = re.compile(r"^ {4}([A-Za-z0-9_.\-]+) \(([0-9][^)\s-]*)(?:-[^)]*)?\)$")


def _line_packages(ecosystem: str, pattern: re.Pattern[str], rel: str, text: str) -> list[Package]:
    """One package per line that ``pattern`` matches (group 1 name, group 2 version)."""
    return [Package(ecosystem, m.group(1), m.group(2), rel, no)
            for no, line in enumerate(text.splitlines(), 1) if (m := pattern.match(line))]


def parse_pnpm_lock(rel: str, text: str) -> list[Package]:
    out = _line_packages("npm", PNPM_LINE, rel, text)
    return list({(p.name, p.version): p for p in out}.values())


def _toml_packages(ecosystem: str) -> Parser:
    def parse(rel: str, text: str) -> list[Package]:
        data = tomllib.loads(text)
        find = _line_finder(text)
        return [Package(ecosystem, p["name"], str(p["version"]), rel, find(f'name = "{p["name"]}"'))
                for p in data.get("package", []) if "name" in p and "version" in p]

    return parse


def parse_pipfile_lock(rel: str, text: str) -> list[Package]:
    data = json.loads(text)
    find = _line_finder(text)
    out = []
    for section in ("default", "develop"):
        for name, info in (data.get(section) or {}).items():
            version = str(info.get("version", "")).lstrip("=")
            if version:
                out.append(Package("PyPI", name, version, rel, find(f'"{name}"')))
    return out


def parse_go_sum(rel: str, text: str) -> list[Package]:
    out = {}
    for no, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if len(parts) >= 2 and not parts[1].endswith("/go.mod"):
            out[(parts[0], parts[1])] = Package("Go", parts[0], parts[1], rel, no)
        elif len(parts) >= 2 and (parts[0], parts[1].removesuffix("/go.mod")) not in out:
            version = parts[1].removesuffix("/go.mod")
            out[(parts[0], version)] = Package("Go", parts[0], version, rel, no)
    return list(out.values())


def parse_go_mod(rel: str, text: str) -> list[Package]:
    return _line_packages("Go", GO_MOD_LINE, rel, text)


def parse_gemfile_lock(rel: str, text: str) -> list[Package]:
    return _line_packages("RubyGems", GEM_LINE, rel, text)


def parse_composer_lock(rel: str, text: str) -> list[Package]:
    data = json.loads(text)
    find = _line_finder(text)
    return [Package("Packagist", p["name"], str(p["version"]).lstrip("v"), rel, find(f'"{p["name"]}"'))
            for key in ("packages", "packages-dev") for p in data.get(key) or []
            if "name" in p and "version" in p]


def parse_package_resolved(rel: str, text: str) -> list[Package]:
    data = json.loads(text)
    pins = data.get("pins") or (data.get("object") or {}).get("pins") or []
    find = _line_finder(text)
    out = []
    for pin in pins:
        url = pin.get("location") or pin.get("repositoryURL") or ""
        version = (pin.get("state") or {}).get("version")
        if url and version:
            out.append(Package("SwiftURL", url.removesuffix(".git"), version, rel, find(url)))
    return out


PARSERS: dict[str, Parser] = {
    "package-lock.json": parse_package_lock,
    "npm-shrinkwrap.json": parse_package_lock,
    "yarn.lock": parse_yarn_lock,
    "pnpm-lock.yaml": parse_pnpm_lock,
    "Cargo.lock": _toml_packages("crates.io"),
    "poetry.lock": _toml_packages("PyPI"),
    "uv.lock": _toml_packages("PyPI"),
    "Pipfile.lock": parse_pipfile_lock,
    "go.sum": parse_go_sum,
    "go.mod": parse_go_mod,
    "Gemfile.lock": parse_gemfile_lock,
    "composer.lock": parse_composer_lock,
    "Package.resolved": parse_package_resolved,
}


def parser_for(rel: str) -> Parser | None:
    name = PurePosixPath(rel).name
    if name.startswith("requirements") and name.endswith(".txt"):
        return parse_requirements
    return PARSERS.get(name)

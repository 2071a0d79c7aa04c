"""Declared licenses from manifests and lockfiles.

Read: package.json, package-lock.json / npm-shrinkwrap.json (v2/v3 carry each package's
license), composer.json, composer.lock, Cargo.toml, pyproject.toml (PEP 621/639, Poetry,
classifiers), Python METADATA / PKG-INFO, *.gemspec, pom.xml. Files that declare no
license are not read: go.mod/go.sum, Cargo.lock, Gemfile.lock, yarn.lock, pnpm-lock.yaml,
poetry.lock, uv.lock, requirements*.txt and Package.resolved carry names and versions only.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import PurePosixPath
from typing import Any

from aiagent.engines.security.deps.packages import Package

PROJECT, DEPENDENCY = "project", "dependency"


@dataclass(frozen=True, slots=True)
class Declared:
    name: str
    version: str
    ecosystem: str
    raw: str
    file: str
    line: int = 0
    scope: str = PROJECT

    @property
    def purl(self) -> str:
        if not (self.ecosystem and self.version):
            return ""
        return Package(self.ecosystem, self.name, self.version, self.file).purl


Reader = Callable[[str, str], list[Declared]]


def _finder(text: str) -> Callable[[str], int]:
    def find(needle: str) -> int:
        at = text.find(needle)
        return text.count("\n", 0, at) + 1 if at >= 0 else 1

    return find


def _npm_license(info: dict[str, Any]) -> str:
    value = info.get("license") or info.get("licenses") or ""
    if isinstance(value, dict):
        value = value.get("type", "")
    if isinstance(value, list):
        names = [v.get("type", "") if isinstance(v, dict) else str(v) for v in value]
        value = " OR ".join(n for n in names if n)
    return str(value)


def read_package_json(rel: str, text: str) -> list[Declared]:
    data = json.loads(text)
    raw = _npm_license(data) if isinstance(data, dict) else ""
    if not raw:
        return []
    return [Declared(str(data.get("name", "")), str(data.get("version", "")), "npm", raw, rel,
                     _finder(text)('"license'))]


def read_package_lock(rel: str, text: str) -> list[Declared]:
    data = json.loads(text)
    find = _finder(text)
    out = []
    for path, info in (data.get("packages") or {}).items():
        if not path or not isinstance(info, dict) or not info.get("version"):
            continue
        raw = _npm_license(info)
        if raw:
            name = info.get("name") or path.rsplit("node_modules/", 1)[-1]
            out.append(Declared(name, info["version"], "npm", raw, rel, find(f'"{path}"'), DEPENDENCY))
    return out


def _composer_license(value: Any) -> str:
    if isinstance(value, list):
        return " OR ".join(str(v) for v in value)  # composer: a list means a choice
    return str(value or "")


def read_composer_json(rel: str, text: str) -> list[Declared]:
    data = json.loads(text)
    raw = _composer_license(data.get("license"))
    return [Declared(str(data.get("name", "")), str(data.get("version", "")), "Packagist", raw,
                     rel, _finder(text)('"license"'))] if raw else []


def read_composer_lock(rel: str, text: str) -> list[Declared]:
    data = json.loads(text)
    find = _finder(text)
    out = []
    for pkg in [*(data.get("packages") or []), *(data.get("packages-dev") or [])]:
        raw = _composer_license(pkg.get("license"))
        if raw and pkg.get("name") and pkg.get("version"):
            version = str(pkg["version"]).removeprefix("v")
            out.append(Declared(pkg["name"], version, "Packagist", raw, rel,
                                find(f'"name": "{pkg["name"]}"'), DEPENDENCY))
    return out


def read_cargo_toml(rel: str, text: str) -> list[Declared]:
    package = tomllib.loads(text).get("package") or {}
    raw = package.get("license") or ""
    if not isinstance(raw, str) or not raw:
        return []
    version = package.get("version")
    version = version if isinstance(version, str) else ""  # workspace = true is a table
    return [Declared(str(package.get("name", "")), version, "crates.io", raw, rel,
                     _finder(text)("license"))]


def read_pyproject(rel: str, text: str) -> list[Declared]:
    data = tomllib.loads(text)
    project = data.get("project") or {}
    poetry = (data.get("tool") or {}).get("poetry") or {}
    raw = project.get("license") or poetry.get("license") or ""
    if isinstance(raw, dict):
        raw = raw.get("text", "")
    if not raw:
        raw = _from_classifiers([*project.get("classifiers", []), *poetry.get("classifiers", [])])
    name = project.get("name") or poetry.get("name") or ""
    version = project.get("version") or poetry.get("version") or ""
    if not isinstance(raw, str) or not raw:
        return []
    return [Declared(str(name), str(version), "PyPI", raw, rel, _finder(text)("license"))]


def _from_classifiers(classifiers: list[str]) -> str:
    found = [c for c in classifiers if isinstance(c, str) and c.startswith("License ::")]
    return found[0] if len(found) == 1 else " OR ".join(found) if found else ""


def read_metadata(rel: str, text: str, scope: str = PROJECT) -> list[Declared]:
    """Core metadata (METADATA / PKG-INFO): License-Expression, else License, else classifiers."""
    headers = HeaderParser().parsestr(text.split("\n\n", 1)[0])
    raw = headers.get("License-Expression") or ""
    license_field = (headers.get("License") or "").strip()
    if not raw and license_field and "\n" not in license_field and len(license_field) < 100:
        raw = license_field
    if not raw:
        classifiers = [c for c in headers.get_all("Classifier") or [] if c.startswith("License ::")]
        from aiagent.engines.security.licensing.spdx import normalize

        parts = [normalize(c).expression or c for c in classifiers]
        raw = " OR ".join(dict.fromkeys(parts))
    if not raw:
        return []
    return [Declared(headers.get("Name", ""), headers.get("Version", ""), "PyPI", raw, rel, 1, scope)]


GEMSPEC_LICENSE = re.compile(r"\.licenses?\s*=\s*(\[[^\]]*\]|[\"'][^\"']+[\"'])")
GEMSPEC_FIELD = re.compile(r"\.(name|version)\s*=\s*[\"']([^\"']+)[\"']")


def read_gemspec(rel: str, text: str) -> list[Declared]:
    m = GEMSPEC_LICENSE.search(text)
    if not m:
        return []
    names = re.findall(r"[\"']([^\"']+)[\"']", m.group(1))
    fields = dict(GEMSPEC_FIELD.findall(text))
    return [Declared(fields.get("name", ""), fields.get("version", ""), "RubyGems",
                     " OR ".join(names), rel, text.count("\n", 0, m.start()) + 1)]


POM_LICENSE = re.compile(r"<license>\s*<name>([^<]+)</name>", re.IGNORECASE)


def read_pom(rel: str, text: str) -> list[Declared]:
    m = POM_LICENSE.search(text)
    if not m:
        return []
    return [Declared("", "", "Maven", m.group(1).strip(), rel, text.count("\n", 0, m.start()) + 1)]


READERS: dict[str, Reader] = {
    "package.json": read_package_json,
    "package-lock.json": read_package_lock,
    "npm-shrinkwrap.json": read_package_lock,
    "composer.json": read_composer_json,
    "composer.lock": read_composer_lock,
    "Cargo.toml": read_cargo_toml,
    "pyproject.toml": read_pyproject,
    "METADATA": read_metadata,
    "PKG-INFO": read_metadata,
    "pom.xml": read_pom,
}


def reader_for(rel: str) -> Reader | None:
    name = PurePosixPath(rel).name
    if name.endswith(".gemspec"):
        return read_gemspec
    return READERS.get(name)

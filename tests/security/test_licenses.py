"""License scanner: SPDX normalisation, manifests, LICENSE texts, policy and the SBOM."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sec_helpers import FIXTURES

from aiagent.engines.security.config import LicensePolicy, SecurityConfig, parse_config
from aiagent.engines.security.engine import AuditOptions, run_audit
from aiagent.engines.security.licensing.declared import reader_for
from aiagent.engines.security.licensing.policy import failures
from aiagent.engines.security.licensing.spdx import normalize, parse
from aiagent.engines.security.licensing.texts import identify, is_license_file

TEXTS = FIXTURES / "licenses"


@pytest.mark.parametrize(("raw", "spdx"), [
    ("MIT", "MIT"), ("mit", "MIT"), ("The MIT License (MIT)", "MIT"),
    ("Apache License, Version 2.0", "Apache-2.0"), ("Apache 2.0", "Apache-2.0"),
    ("BSD", "BSD-3-Clause"), ("GPL-2.0+", "GPL-2.0-or-later"), ("GPLv3", "GPL-3.0-only"),
    ("MIT/Apache-2.0", "MIT OR Apache-2.0"), ("(MIT OR Apache-2.0)", "MIT OR Apache-2.0"),
    ("License :: OSI Approved :: BSD License", "BSD-3-Clause"),
    ("GNU General Public License v3 or later", "GPL-3.0-or-later"),
    ("GPL-2.0-only WITH Classpath-exception-2.0", "GPL-2.0-only WITH Classpath-exception-2.0"),
    ("SEE LICENSE IN LICENSE.txt", ""), ("UNLICENSED", ""), ("Frobnicate Public License", ""),
])
def test_normalize_to_spdx(raw: str, spdx: str) -> None:
    assert normalize(raw).expression == spdx


@pytest.mark.parametrize(("expression", "deny", "allow", "verdicts"), [
    ("MIT", ("GPL-3.0",), (), []),
    ("GPL-3.0-only", ("GPL-3.0",), (), ["denied"]),
    ("GPL-3.0-or-later", ("gpl-*",), (), ["denied"]),
    ("MIT OR GPL-3.0-only", ("GPL-3.0",), (), []),  # the user may pick MIT
    ("MIT AND GPL-3.0-only", ("GPL-3.0",), (), ["denied"]),
    ("LGPL-3.0-only", ("GPL-3.0",), (), []),  # a plain id covers its variants, not others
    ("LGPL-3.0-only", (), ("MIT", "Apache-2.0"), ["not-allowed"]),
    ("GPL-2.0-only WITH Classpath-exception-2.0", (), ("GPL-2.0-only",), []),
])
def test_policy(expression: str, deny: tuple[str, ...], allow: tuple[str, ...],
                verdicts: list[str]) -> None:
    found = failures(parse(expression), LicensePolicy(deny, allow))
    assert [v for v, _ in found] == verdicts


@pytest.mark.parametrize("name", sorted(p.name for p in TEXTS.iterdir()))
def test_license_texts_are_recognised(name: str) -> None:
    assert identify((TEXTS / name).read_text()) == name.removesuffix(".txt")


def test_license_file_names() -> None:
    assert all(is_license_file(n) for n in ["LICENSE", "LICENSE.md", "COPYING", "pkg/LICENCE.txt",
                                            "COPYING.LESSER", "UNLICENSE", "LICENSE-MIT"])
    assert not any(is_license_file(n) for n in ["license.py", "licenses/", "src/licensing.rs"])


MANIFESTS = {
    "package.json": ('{"name": "shop", "version": "1.0.0", "license": "ISC"}', "ISC"),
    "package-lock.json": ('{"lockfileVersion": 3, "packages": {"": {"name": "shop"}, '
                          '"node_modules/left-pad": {"version": "1.3.0", "license": "WTFPL"}}}',
                          "WTFPL"),
    "composer.json": ('{"name": "acme/shop", "license": ["MIT", "GPL-2.0-or-later"]}',
                      "MIT OR GPL-2.0-or-later"),
    "composer.lock": ('{"packages": [{"name": "monolog/monolog", "version": "2.9.1", '
                      '"license": ["MIT"]}]}', "MIT"),
    "Cargo.toml": ('[package]\nname = "tool"\nversion = "0.1.0"\nlicense = "MIT/Apache-2.0"\n',
                   "MIT OR Apache-2.0"),
    "pyproject.toml": ('[project]\nname = "tool"\nversion = "1.0"\nlicense = "Apache-2.0"\n',
                       "Apache-2.0"),
    "poetry/pyproject.toml": ('[tool.poetry]\nname = "tool"\nlicense = "BSD-3-Clause"\n',
                              "BSD-3-Clause"),
    "classic/pyproject.toml": ('[project]\nname = "old"\nlicense = {text = "MIT License"}\n',
                               "MIT"),
    "dist/METADATA": ("Metadata-Version: 2.1\nName: requests\nVersion: 2.31.0\n"
                      "Classifier: License :: OSI Approved :: Apache Software License\n\nbody\n",
                      "Apache-2.0"),
    "tool.gemspec": ('Gem::Specification.new do |spec|\n  spec.name = "tool"\n'
                     '  spec.licenses = ["MIT"]\nend\n', "MIT"),
    "pom.xml": ("<project><licenses><license><name>Apache License, Version 2.0</name>"
                "</license></licenses></project>", "Apache-2.0"),
}


@pytest.mark.parametrize("rel", sorted(MANIFESTS))
def test_manifest_readers(rel: str) -> None:
    text, spdx = MANIFESTS[rel]
    reader = reader_for(rel)
    assert reader is not None
    [declared] = reader(rel, text)
    assert normalize(declared.raw).expression == spdx


@pytest.mark.parametrize("rel", ["go.mod", "go.sum", "Cargo.lock", "Gemfile.lock", "yarn.lock"])
def test_files_without_license_data_are_not_read(rel: str) -> None:
    assert reader_for(rel) is None


def _project(tmp_path: Path, policy: str = "") -> Path:
    (tmp_path / "LICENSE").write_text((TEXTS / "MIT.txt").read_text())
    (tmp_path / "package-lock.json").write_text(json.dumps({"lockfileVersion": 3, "packages": {
        "": {"name": "app"},
        "node_modules/gpl-lib": {"version": "1.0.0", "license": "GPL-3.0-only"},
        "node_modules/dual": {"version": "2.0.0", "license": "(MIT OR GPL-3.0-only)"},
        "node_modules/odd": {"version": "0.1.0", "license": "Frobnicate License"},
        "node_modules/ok": {"version": "3.0.0", "license": "MIT"}}}, indent=2))
    venv = tmp_path / ".venv/lib/python3.12/site-packages/agpl_thing-1.0.dist-info"
    venv.mkdir(parents=True)
    (venv / "METADATA").write_text("Metadata-Version: 2.4\nName: agpl-thing\nVersion: 1.0\n"
                                   "License-Expression: AGPL-3.0-or-later\n")
    if policy:
        (tmp_path / ".security.yaml").write_text(policy)
    return tmp_path


def _licenses(root: Path, config: SecurityConfig) -> list[tuple[str, str]]:
    result = run_audit(root, config, AuditOptions(scanners=("licenses",), jobs=1))
    return sorted((f.id, f.metadata.get("package", f.location.file)) for f in result.findings)


def test_without_policy_copyleft_and_unknown_are_informational(tmp_path: Path) -> None:
    found = _licenses(_project(tmp_path), SecurityConfig())
    assert found == [("LIC-COPYLEFT-001", "agpl-thing"), ("LIC-COPYLEFT-001", "gpl-lib"),
                     ("LIC-UNKNOWN-001", "odd")]


def test_deny_policy_is_enforced(tmp_path: Path) -> None:
    config = parse_config({"licenses": {"deny": ["GPL-3.0", "AGPL-*"]}}, ".security.yaml")
    found = _licenses(_project(tmp_path), config)
    assert ("LIC-DENIED-001", "gpl-lib") in found and ("LIC-DENIED-001", "agpl-thing") in found
    assert not any(pkg == "dual" for _, pkg in found)  # MIT is an allowed choice


def test_allow_list_is_enforced(tmp_path: Path) -> None:
    config = parse_config({"licenses": {"allow": ["MIT", "Apache-2.0"]}}, ".security.yaml")
    found = _licenses(_project(tmp_path), config)
    assert ("LIC-NOT-ALLOWED-001", "gpl-lib") in found
    assert not any(pkg in {"ok", "dual"} for _, pkg in found)


def test_sbom_carries_licenses(tmp_path: Path) -> None:
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator

    from aiagent.engines.security.report import get_renderer

    root = _project(tmp_path)
    result = run_audit(root, SecurityConfig(), AuditOptions(jobs=1, scanners=("dependencies", "licenses")))
    text = get_renderer("cyclonedx")(result)
    assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(text) is None
    bom = json.loads(text)
    assert bom["metadata"]["component"]["licenses"] == [{"license": {"id": "MIT"}}]
    by_name = {c["name"]: c.get("licenses") for c in bom["components"]}
    assert by_name["gpl-lib"] == [{"license": {"id": "GPL-3.0-only"}}]
    assert by_name["dual"] == [{"expression": "MIT OR GPL-3.0-only"}]

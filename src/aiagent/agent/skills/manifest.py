"""The skill manifest: what ``SKILL.yaml`` (spec Appendix E) holds, parsed and checked.

:func:`load_manifest` reads a ``SKILL.yaml`` and returns a :class:`Manifest`, or raises
:class:`ManifestError` with one line naming the file, the field and what is wrong.
``SKILL.md`` files are read by :mod:`aiagent.agent.skills.skillmd` into the same type.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from aiagent.agent.skills.validcache import digest, valid_cache
from aiagent.agent.skills.versions import VersionError, parse_range, parse_version

SKILL_TYPES = ("tool", "prompt", "workflow", "security-rule", "transform")
BACKENDS = ("starlark", "process", "python")
MAX_MANIFEST_BYTES = 256 * 1024


class ManifestError(Exception):
    """A manifest that cannot be used. The message names the file and the field."""


@dataclass(frozen=True, slots=True)
class Triggers:
    files: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    modes: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.files or self.keywords or self.modes or self.languages)


@dataclass(frozen=True, slots=True)
class Dependency:
    name: str
    version: str | None = None
    optional: bool = False


@dataclass(frozen=True, slots=True)
class Implementation:
    backend: str  # starlark | process | python
    entrypoint: str | None = None  # skill.star, or plugin.py for python
    command: tuple[str, ...] = ()  # process
    module: str | None = None  # python: dotted module path
    entry_point: str | None = None  # python: name in the aiagent.agent.skills entry-point group
    timeout: float | None = None  # seconds per call


@dataclass(frozen=True, slots=True)
class PromptConfig:
    system_prompt_file: str | None = None
    system_prompt: str | None = None  # inline text (the body of a SKILL.md)
    context_files: tuple[str, ...] = ()
    max_context_tokens: int = 4000


@dataclass(frozen=True, slots=True)
class ToolDecl:
    name: str
    description: str = ""
    input_schema: dict[str, Any] | None = None
    requires_approval: bool = False


@dataclass(frozen=True, slots=True)
class WorkflowDecl:
    name: str
    description: str = ""
    input_schema: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ScannerDecl:
    name: str
    entrypoint: str | None = None


@dataclass(frozen=True, slots=True)
class SecurityRules:
    sast_rules_file: str | None = None
    overrides_file: str | None = None
    scanners: tuple[ScannerDecl, ...] = ()


@dataclass(frozen=True, slots=True)
class Manifest:
    name: str
    version: str
    description: str
    types: tuple[str, ...]
    root: Path  # the skill's folder
    file: Path  # SKILL.yaml or SKILL.md
    format: str = "yaml"  # yaml | md
    author: str = ""
    license: str = ""
    homepage: str = ""
    triggers: Triggers = Triggers()
    permissions: tuple[str, ...] = ()
    dependencies: tuple[Dependency, ...] = ()
    implementation: Implementation | None = None
    prompt: PromptConfig | None = None
    tools: tuple[ToolDecl, ...] = ()
    workflows: tuple[WorkflowDecl, ...] = ()
    security_rules: SecurityRules | None = None
    wiki: dict[str, Any] = field(default_factory=dict)
    agent_version: str | None = None
    platforms: tuple[str, ...] = ()
    allowed_tools: tuple[str, ...] = ()  # SKILL.md ``allowed-tools``
    config: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    when_to_use: str = ""  # when the model should pick it (shown in the skills index)
    builtin_tools: tuple[str, ...] = ()  # built-in skills: aiagent tools or groups they offer

    @property
    def backend(self) -> str | None:
        return self.implementation.backend if self.implementation else None


# ---- reading -------------------------------------------------------------------------


@cache
def _schema_text() -> str:
    return resources.files("aiagent.agent.skills").joinpath("data/manifest.schema.json").read_text("utf-8")


@cache
def _schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_schema_text())
    return data


def safe_yaml(text: str) -> Any:
    """``yaml.safe_load`` on libyaml when PyYAML has it (about 10x faster: discovery reads
    every manifest on every start)."""
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 - safe loaders only


def read_yaml(path: Path) -> Any:
    """Parse a YAML file, or raise a one-line :class:`ManifestError`."""
    import yaml

    try:
        raw = path.read_bytes()[:MAX_MANIFEST_BYTES]
        return safe_yaml(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ManifestError(f"{path}: not valid UTF-8") from None
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise ManifestError(f"{where}: invalid YAML: {problem}") from None


def load_manifest(path: Path) -> Manifest:
    """Read and check a ``SKILL.yaml``."""
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: expected a mapping of fields, got {type(data).__name__}")
    return parse_manifest(data, path)


def parse_manifest(data: dict[str, Any], path: Path) -> Manifest:
    check_schema(data, path)
    root = path.parent
    try:
        parse_version(str(data["version"]))
    except VersionError as exc:
        raise ManifestError(f"{path}: version: {exc}") from None
    manifest = Manifest(
        name=data["name"],
        version=str(data["version"]),
        description=" ".join(str(data["description"]).split()),
        types=tuple(dict.fromkeys(data["types"])),
        root=root,
        file=path,
        author=str(data.get("author", "")),
        license=str(data.get("license", "")),
        homepage=str(data.get("homepage", "")),
        triggers=_triggers(data.get("triggers") or {}),
        permissions=tuple(dict.fromkeys(data.get("permissions") or [])),
        dependencies=tuple(_dependency(d, path, i) for i, d in enumerate(data.get("dependencies") or [])),
        implementation=_implementation(data.get("implementation"), path),
        prompt=_prompt(data.get("prompt")),
        tools=tuple(_tool(t, root, path, i) for i, t in enumerate(data.get("tools") or [])),
        workflows=tuple(_workflow(w, root, path, i) for i, w in enumerate(data.get("workflows") or [])),
        security_rules=_security(data.get("security_rules")),
        wiki=dict(data.get("wiki") or {}),
        config=dict(data.get("config") or {}),
        when_to_use=" ".join(str(data.get("when_to_use") or "").split()),
        builtin_tools=tuple(str(t) for t in data.get("builtin_tools") or []),
        **_compatibility(data.get("compatibility") or {}, path),
    )
    check_files(manifest)
    return manifest


@cache
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(_schema())


def check_schema(data: dict[str, Any], path: Path) -> None:
    """Raise a one-line :class:`ManifestError` on the first schema error. Content found
    valid before (by hash, in the cache folder) is not checked again."""

    key = digest(data, _schema_text())
    if key is not None and key in valid_cache():
        return
    errors = sorted(_validator().iter_errors(data), key=lambda e: (len(e.path), list(map(str, e.path))))
    if not errors:
        if key is not None:
            valid_cache().add(key)
        return
    err = errors[0]
    where = _field_path(err.absolute_path) or "(top level)"
    message = err.message
    if err.validator == "additionalProperties":
        message = message.replace("Additional properties are not allowed", "unknown field")
    elif err.validator == "enum":
        message = f"{err.instance!r} is not one of {', '.join(map(str, err.validator_value))}"
    elif err.validator == "pattern" and where == "name":
        message = f"{err.instance!r} must be lowercase letters, digits and hyphens"
    elif err.validator == "pattern" and where.startswith("permissions"):
        message = f"{err.instance!r} is not a known permission (file:read, file:write, shell:exec, net:fetch, llm:call, git:read, git:write, env:read, env:write, skill:invoke)"
    elif err.validator == "required":
        message = message.replace("is a required property", "is missing")
    raise ManifestError(f"{path}: {where}: {message}")


def _field_path(parts: Any) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _triggers(t: dict[str, Any]) -> Triggers:
    return Triggers(
        files=tuple(t.get("files") or ()),
        keywords=tuple(t.get("keywords") or ()),
        modes=tuple(t.get("modes") or ()),
        languages=tuple(x.lower() for x in t.get("languages") or ()),
    )


def _dependency(d: dict[str, Any], path: Path, index: int) -> Dependency:
    version = d.get("version")
    if version is not None:
        try:
            parse_range(str(version))
        except VersionError as exc:
            raise ManifestError(f"{path}: dependencies[{index}].version: {exc}") from None
    return Dependency(d["name"], None if version is None else str(version), bool(d.get("optional")))


def _implementation(d: dict[str, Any] | None, path: Path) -> Implementation | None:
    if d is None:
        return None
    backend = "python" if d["backend"] == "plugin" else d["backend"]
    entry = d.get("entrypoint") or d.get("path")
    if backend == "starlark" and not entry:
        raise ManifestError(f"{path}: implementation.entrypoint: a starlark skill needs its .star file")
    if backend == "process" and not d.get("command"):
        raise ManifestError(f"{path}: implementation.command: a process skill needs a command, like [\"node\", \"skill.js\"]")
    if backend == "python" and not (entry or d.get("module") or d.get("entry_point")):
        raise ManifestError(f"{path}: implementation: a python skill needs module, entry_point or entrypoint")
    return Implementation(
        backend=backend,
        entrypoint=entry,
        command=tuple(d.get("command") or ()),
        module=d.get("module"),
        entry_point=d.get("entry_point"),
        timeout=d.get("timeout"),
    )


def _prompt(d: dict[str, Any] | None) -> PromptConfig | None:
    if d is None:
        return None
    return PromptConfig(
        system_prompt_file=d.get("system_prompt_file"),
        system_prompt=d.get("system_prompt"),
        context_files=tuple(d.get("context_files") or ()),
        max_context_tokens=int(d.get("max_context_tokens", 4000)),
    )


def _schema_file(root: Path, rel: str, where: str) -> dict[str, Any]:
    target = inside(root, rel, where)
    try:
        data = json.loads(target.read_text("utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{where}: file {rel} not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"{where}: {rel} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{where}: {rel} must hold a JSON object schema")
    return data


def _tool(d: dict[str, Any], root: Path, path: Path, index: int) -> ToolDecl:
    schema = d.get("input_schema")
    if d.get("input_schema_file"):
        schema = _schema_file(root, d["input_schema_file"], f"{path}: tools[{index}].input_schema_file")
    return ToolDecl(d["name"], d.get("description", ""), schema, bool(d.get("requires_approval")))


def _workflow(d: dict[str, Any], root: Path, path: Path, index: int) -> WorkflowDecl:
    schema = d.get("input_schema")
    if d.get("input_schema_file"):
        schema = _schema_file(root, d["input_schema_file"], f"{path}: workflows[{index}].input_schema_file")
    return WorkflowDecl(d["name"], d.get("description", ""), schema)


def _security(d: dict[str, Any] | None) -> SecurityRules | None:
    if d is None:
        return None
    scanners = tuple(ScannerDecl(s["name"], s.get("entrypoint")) for s in d.get("scanners") or ())
    return SecurityRules(d.get("sast_rules_file"), d.get("overrides_file"), scanners)


def _compatibility(d: dict[str, Any], path: Path) -> dict[str, Any]:
    spec = d.get("agent_version")
    if spec is not None:
        try:
            parse_range(str(spec))
        except VersionError as exc:
            raise ManifestError(f"{path}: compatibility.agent_version: {exc}") from None
    return {"agent_version": spec, "platforms": tuple(d.get("platforms") or ())}


def inside(root: Path, rel: str, where: str) -> Path:
    """``root/rel``, refusing paths that leave the skill folder."""
    target = (root / rel).resolve()
    if not target.is_relative_to(root.resolve()):
        raise ManifestError(f"{where}: {rel} is outside the skill folder")
    return target


def check_files(m: Manifest) -> None:
    """Every file the manifest names must exist inside the skill folder."""
    refs: list[tuple[str, str | None]] = []
    if m.implementation and m.implementation.backend in ("starlark",):
        refs.append(("implementation.entrypoint", m.implementation.entrypoint))
    if m.implementation and m.implementation.backend == "python" and m.implementation.entrypoint:
        refs.append(("implementation.entrypoint", m.implementation.entrypoint))
    if m.prompt:
        refs.append(("prompt.system_prompt_file", m.prompt.system_prompt_file))
        refs += [(f"prompt.context_files[{i}]", f) for i, f in enumerate(m.prompt.context_files)]
    if m.security_rules:
        refs.append(("security_rules.sast_rules_file", m.security_rules.sast_rules_file))
        refs.append(("security_rules.overrides_file", m.security_rules.overrides_file))
    for where, rel in refs:
        if rel and not inside(m.root, rel, f"{m.file}: {where}").is_file():
            raise ManifestError(f"{m.file}: {where}: file {rel} not found")
    if "tool" in m.types and not m.implementation and not m.builtin_tools:
        raise ManifestError(f"{m.file}: implementation: a tool skill needs an implementation (starlark, process or python)")

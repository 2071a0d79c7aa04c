"""The portable ``SKILL.md`` format (agentskills.io), shared by Claude Code, Codex and Gemini.

A ``SKILL.md`` is YAML frontmatter (``name``, ``description``; optionally ``license``,
``compatibility``, ``metadata``, ``allowed-tools``) followed by Markdown instructions, with
``scripts/``, ``references/`` and ``assets/`` beside it. Real skills bend the rules (long
descriptions, a name that is not the folder's, extra fields of one engine), so reading is
lenient: such problems become warnings and the skill still loads. Only a file that cannot
be read at all raises :class:`~aiagent.agent.skills.manifest.ManifestError`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from aiagent.agent.skills.manifest import (
    MAX_MANIFEST_BYTES,
    Manifest,
    ManifestError,
    PromptConfig,
    parse_manifest,
    read_yaml,
    safe_yaml,
)
from aiagent.agent.skills.versions import VersionError, parse_version

NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
KNOWN_FIELDS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
#: when the model should pick the skill (Claude Code's extension); shown in the skills index
WHEN_FIELDS = ("when_to_use", "when-to-use")
#: fields other engines define; kept out of the warnings
ENGINE_FIELDS = {
    "argument-hint", "disable-model-invocation", "user-invocable", "model", "context", "agent",
    "hooks", "version",
}


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """(frontmatter YAML or None, body)."""
    text = text.lstrip("\ufeff")
    m = re.match(r"^---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)", text, re.S)
    if not m:
        if re.match(r"^---[ \t]*\r?\n", text):
            return "", text  # opened but never closed
        return None, text
    return m.group(1), text[m.end():]


def parse_frontmatter(block: str, path: Path) -> dict[str, Any]:
    import yaml

    try:
        data = safe_yaml(block) if block.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 2}" if mark is not None else ""
        raise ManifestError(f"{path}{line}: frontmatter is not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: frontmatter must be a mapping of fields")
    return data


def load_skill_md(path: Path, warnings: list[str]) -> Manifest:
    """Read a ``SKILL.md``; problems that real skills have are added to ``warnings``."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read: {exc.strerror}") from None
    if len(raw) > MAX_MANIFEST_BYTES:
        warnings.append(f"{path}: {len(raw):,} bytes; only the first {MAX_MANIFEST_BYTES:,} are read "
                        "(move long material to references/)")
    text = raw[:MAX_MANIFEST_BYTES].decode("utf-8", errors="replace")
    block, body = split_frontmatter(text)
    if block == "" and body.startswith("---"):
        raise ManifestError(f"{path}: frontmatter is not closed with a '---' line")
    if block is None:
        warnings.append(f"{path}: no YAML frontmatter; using the folder name and the first line")
        return manifest_from_frontmatter({}, body.strip(), path, [])
    return manifest_from_frontmatter(parse_frontmatter(block, path), body.strip(), path, warnings)


def _name(data: dict[str, Any], folder: str, path: Path, warnings: list[str]) -> str:
    raw = data.get("name")
    if raw is None or not str(raw).strip():
        warnings.append(f"{path}: name: missing; using the folder name {folder!r}")
        raw = folder
    name = str(raw).strip()
    if not NAME_RE.match(name) or len(name) > MAX_NAME:
        fixed = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:MAX_NAME] or "skill"
        warnings.append(f"{path}: name: {name!r} should be lowercase letters, digits and hyphens (max {MAX_NAME}); using {fixed!r}")
        name = fixed
    if name != folder and NAME_RE.match(folder):
        warnings.append(f"{path}: name: {name!r} differs from its folder {folder!r}")
    return name


def _description(data: dict[str, Any], body: str, path: Path, warnings: list[str]) -> str:
    raw = data.get("description")
    text = " ".join(str(raw).split()) if raw is not None else ""
    if not text:
        first = next((ln.strip("# ").strip() for ln in body.splitlines() if ln.strip()), "")
        warnings.append(f"{path}: description: missing; using the first line of the body")
        text = first or "(no description)"
    if len(text) > MAX_DESCRIPTION:
        warnings.append(f"{path}: description: {len(text)} characters (the standard allows {MAX_DESCRIPTION})")
    return text


def _allowed_tools(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value if isinstance(value, list) else re.split(r"[,\s]+", str(value))
    return tuple(str(i).strip() for i in items if str(i).strip())


def manifest_from_frontmatter(data: dict[str, Any], body: str, path: Path, warnings: list[str]) -> Manifest:
    folder = path.parent.name
    name = _name(data, folder, path, warnings)
    description = _description(data, body, path, warnings)
    unknown = sorted(set(data) - KNOWN_FIELDS - ENGINE_FIELDS - set(WHEN_FIELDS))
    if unknown:
        warnings.append(f"{path}: unknown frontmatter fields ignored: {', '.join(unknown)}")
    compatibility = data.get("compatibility")
    if compatibility is not None and len(str(compatibility)) > MAX_COMPATIBILITY:
        warnings.append(f"{path}: compatibility: longer than {MAX_COMPATIBILITY} characters")
    raw_metadata = data.get("metadata")
    metadata: dict[str, Any] = dict(raw_metadata) if isinstance(raw_metadata, dict) else {}
    if raw_metadata is not None and not isinstance(raw_metadata, dict):
        warnings.append(f"{path}: metadata: should be a mapping; ignored")
    version = str(metadata.get("version") or data.get("version") or "0.0.0")
    manifest = Manifest(
        name=name,
        version=version if _is_semver(version) else "0.0.0",
        description=description,
        types=("prompt",),
        root=path.parent,
        file=path,
        format="md",
        license=str(data.get("license") or ""),
        prompt=PromptConfig(system_prompt=body, max_context_tokens=_body_budget(body)),
        allowed_tools=_allowed_tools(data.get("allowed-tools")),
        metadata=dict(metadata),
        when_to_use=_when_to_use(data),
    )
    return manifest


def _when_to_use(data: dict[str, Any]) -> str:
    raw = next((data[k] for k in WHEN_FIELDS if data.get(k)), "")
    return " ".join(str(raw).split())


def _is_semver(text: str) -> bool:

    try:
        parse_version(text)
    except VersionError:
        return False
    return True


def _body_budget(body: str) -> int:
    return max(4000, len(body) // 3 + 100)


def merge_yaml_and_md(yaml_path: Path, md_path: Path, warnings: list[str]) -> Manifest:
    """A folder with both files: ``SKILL.yaml`` rules; the ``SKILL.md`` body is its prompt
    unless the manifest names its own."""

    data = read_yaml(yaml_path)
    if not isinstance(data, dict):
        raise ManifestError(f"{yaml_path}: expected a mapping of fields, got {type(data).__name__}")
    md = load_skill_md(md_path, warnings)
    prompt = dict(data.get("prompt") or {})
    if not prompt.get("system_prompt_file") and not prompt.get("system_prompt") and md.prompt:
        prompt["system_prompt"] = md.prompt.system_prompt
        data = {**data, "prompt": prompt}
    return parse_manifest(data, yaml_path)

"""The repositories file of ``aiagent batch``: one repository a line.

    # comments and blank lines are ignored
    /srv/checkouts/api                         a local folder, used in place
    https://example.com/org/web.git ref=v2.1   a git URL, cloned shallow at a branch or tag
    file:///tmp/remote.git range=HEAD~3..HEAD  code-review: the commits to review
    /srv/logs-box files=logs/app.log,logs/db.log   log-analysis: the log files, in the folder

A bad line is a one-line error naming the file and the line number; nothing runs.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|[\w.-]+@[\w.-]+:)", re.IGNORECASE)
KEYS = ("ref", "range", "files")


class ReposFileError(ValueError):
    """A repositories file that cannot be read or has a bad line."""


@dataclass(frozen=True, slots=True)
class RepoSpec:
    source: str  # a local folder (absolute) or a git URL
    ref: str = ""
    range: str = ""
    files: tuple[str, ...] = field(default=())

    @property
    def is_url(self) -> bool:
        return bool(URL.match(self.source))

    @property
    def name(self) -> str:
        """A folder name for the results: the repository's last path part and a short hash
        of the whole line (two repositories may share a name)."""
        base = self.source.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
        base = re.sub(r"\.git$", "", base) or "repo"
        base = re.sub(r"[^A-Za-z0-9._-]+", "-", base).strip(".-") or "repo"
        return f"{base[:40]}-{self.digest[:8]}"

    @property
    def digest(self) -> str:
        line = "\0".join((self.source, self.ref, self.range, ",".join(self.files)))
        return hashlib.sha256(line.encode()).hexdigest()

    def as_dict(self) -> dict[str, object]:
        return {"source": self.source, "ref": self.ref, "range": self.range,
                "files": list(self.files)}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> RepoSpec:
        files = data.get("files") or ()
        return cls(str(data["source"]), str(data.get("ref") or ""), str(data.get("range") or ""),
                   tuple(str(f) for f in files) if isinstance(files, list | tuple) else ())


def read_repos(path: Path) -> list[RepoSpec]:
    """The repositories listed in ``path`` (relative folders are taken from its folder)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReposFileError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    specs: list[RepoSpec] = []
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        spec = _parse(line, path.parent.resolve(), f"{path}:{number}")
        if spec.digest in seen:
            raise ReposFileError(f"{path}:{number}: the same repository is listed twice")
        seen.add(spec.digest)
        specs.append(spec)
    if not specs:
        raise ReposFileError(f"{path}: no repository listed")
    return specs


def _parse(line: str, base: Path, where: str) -> RepoSpec:
    source, *rest = line.split()
    options: dict[str, str] = {}
    for token in rest:
        key, sep, value = token.partition("=")
        if not sep or key not in KEYS or not value:
            raise ReposFileError(f"{where}: {token!r}: expected one of "
                                 f"{', '.join(k + '=…' for k in KEYS)}")
        options[key] = value
    if source.startswith("ext::"):
        raise ReposFileError(f"{where}: ext:: URLs run a command; not allowed")
    if not URL.match(source):
        folder = Path(source).expanduser()
        source = str((folder if folder.is_absolute() else base / folder).resolve())
    if options.get("range") and ".." not in options["range"]:
        raise ReposFileError(f"{where}: range={options['range']}: expected A..B")
    files = tuple(f for f in options.get("files", "").split(",") if f)
    for name in files:
        if Path(name).is_absolute() or ".." in Path(name).parts:
            raise ReposFileError(f"{where}: files={name}: a path inside the repository")
    return RepoSpec(source, options.get("ref", ""), options.get("range", ""), files)

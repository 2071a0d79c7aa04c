"""`aiagent security db update`: download OSV's per-ecosystem exports (``ECOSYSTEM/all.zip``)
and merge them into the local advisory database.

Each zip is streamed to a temporary file first, so a failed download changes nothing.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from aiagent.engines.security.deps.osvdb import OsvDatabase, read_records

DEFAULT_EXPORT_URL = "https://osv-vulnerabilities.storage.googleapis.com"
TIMEOUT_S = 60.0


class ExportUnavailable(Exception):
    """The export server could not be reached or did not send a zip."""


@dataclass(frozen=True, slots=True)
class Updated:
    ecosystem: str
    records: int


def update(db: OsvDatabase, ecosystems: Iterable[str], base_url: str = DEFAULT_EXPORT_URL,
           progress: Callable[[str], None] | None = None) -> list[Updated]:
    out = []
    for ecosystem in ecosystems:
        if progress:
            progress(ecosystem)
        with tempfile.TemporaryDirectory(prefix="aiagent-osv-") as tmp:
            zpath = Path(tmp) / "all.zip"
            _download(f"{base_url.rstrip('/')}/{ecosystem}/all.zip", zpath)
            out.append(Updated(ecosystem, db.add(read_records(zpath))))
    return out


def _download(url: str, target: Path) -> None:
    import httpx

    try:
        with httpx.stream("GET", url, timeout=TIMEOUT_S, follow_redirects=True,
                          trust_env=True) as response:
            if response.status_code != 200:
                raise ExportUnavailable(f"{url} answered HTTP {response.status_code}")
            with open(target, "wb") as out:
                for chunk in response.iter_bytes():
                    out.write(chunk)
    except httpx.TimeoutException:
        raise ExportUnavailable(f"{url} did not answer within {TIMEOUT_S:.0f} s") from None
    except httpx.TransportError as exc:
        host = url.split("/", 3)[2] if "://" in url else url
        raise ExportUnavailable(f"cannot reach {host} ({type(exc).__name__}); offline?") from None
    import zipfile

    if not zipfile.is_zipfile(target):
        os.unlink(target)
        raise ExportUnavailable(f"{url} did not send a zip file")

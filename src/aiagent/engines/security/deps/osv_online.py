"""The online advisory lookup: lockfile packages → OSV batch API (cached) → full records.

Opt-in (``--online`` / ``[security] osv_online``). The records it returns go through the
same matcher as the local index. Whatever goes wrong (no network, timeout, server
errors, bad answers), :func:`online_records` adds one warning and returns nothing, so the
audit carries on with the local index.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any

from aiagent.engines.security.deps.osv_cache import OsvCache, QueryKey, VulnRef
from aiagent.engines.security.deps.osv_settings import OsvOnlineSettings
from aiagent.engines.security.deps.packages import PURL_TYPES, Package, normalize_name

if TYPE_CHECKING:
    from aiagent.engines.security.deps.osv_client import OsvClient

WARNING_PREFIX = "OSV online lookup failed:"
Records = dict[QueryKey, list[dict[str, Any]]]


class OnlineLookupError(Exception):
    """The OSV API could not be used; the message is one line for the user."""


def query_key(pkg: Package) -> QueryKey:
    return (pkg.ecosystem, normalize_name(pkg.ecosystem, pkg.name), pkg.version)


def online_records(packages: Iterable[Package], settings: OsvOnlineSettings,
                   warnings: list[str], clock: Callable[[], float] = time.time) -> Records:
    """Records per package from the OSV API or its cache; ``{}`` plus a warning on failure."""
    try:
        return lookup(packages, settings, clock)
    except OnlineLookupError as exc:
        warnings.append(f"{WARNING_PREFIX} {exc}; using the local advisory index only")
        return {}


def online_warnings(warnings: Iterable[str]) -> list[str]:
    """The warnings of :func:`online_records` (the CLI echoes them on stderr)."""
    return [w for w in warnings if w.startswith(WARNING_PREFIX)]


def lookup(packages: Iterable[Package], settings: OsvOnlineSettings,
           clock: Callable[[], float] = time.time) -> Records:
    """Raises :class:`OnlineLookupError` when the API cannot answer in time."""
    cache = OsvCache(settings.cache_root(), settings.cache_hours * 3600, clock)
    queries = {query_key(p): _query(p) for p in packages if p.ecosystem in PURL_TYPES}
    refs = {key: cache.get_query(key) for key in queries}
    known: dict[str, dict[str, Any]] = {}
    if any(r is None for r in refs.values()) or _from_cache(cache, refs, known):
        _run_bounded(lambda: _fetch(settings, cache, queries, refs, known), settings.timeout_s,
                     settings.url)
    return {key: [known[r["id"]] for r in found or [] if r["id"] in known]
            for key, found in refs.items()}


def _query(pkg: Package) -> dict[str, Any]:
    version = pkg.version[1:] if pkg.ecosystem == "Go" and pkg.version.startswith("v") else pkg.version
    return {"package": {"name": pkg.name, "ecosystem": pkg.ecosystem}, "version": version}


def _from_cache(cache: OsvCache, refs: dict[QueryKey, list[VulnRef] | None],
                known: dict[str, dict[str, Any]]) -> list[str]:
    """Fill ``known`` with the cached records the answers name; return the ids still missing."""
    wanted = {r["id"]: r.get("modified", "") for found in refs.values() for r in found or []}
    missing = []
    for vuln_id, modified in wanted.items():
        record = known.get(vuln_id) or cache.get_vuln(vuln_id, modified)
        if record is None:
            missing.append(vuln_id)
        else:
            known[vuln_id] = record
    return missing


async def _fetch(settings: OsvOnlineSettings, cache: OsvCache, queries: dict[QueryKey, dict[str, Any]],
                 refs: dict[QueryKey, list[VulnRef] | None], known: dict[str, dict[str, Any]]) -> None:
    import httpx

    from aiagent.engines.security.deps.osv_client import OsvClient, user_agent

    def keep(record: dict[str, Any]) -> None:  # as each arrives: a lookup cut short keeps it
        cache.put_vuln(record)
        known[record["id"]] = record

    timeout = httpx.Timeout(settings.timeout_s)
    async with httpx.AsyncClient(timeout=timeout, headers={"User-Agent": user_agent()}) as http:
        client = OsvClient(settings.url, http)
        await _fetch_queries(client, cache, queries, refs)
        await client.get_vulns(_from_cache(cache, refs, known), keep)


async def _fetch_queries(client: OsvClient, cache: OsvCache, queries: dict[QueryKey, dict[str, Any]],
                         refs: dict[QueryKey, list[VulnRef] | None]) -> None:
    todo = [key for key, found in refs.items() if found is None]
    if not todo:
        return
    answers = await client.query_batch([queries[key] for key in todo])
    for key, found in zip(todo, answers, strict=True):
        cache.put_query(key, found)
        refs[key] = found


def _run_bounded(make: Callable[[], Coroutine[Any, Any, None]], timeout_s: float, url: str) -> None:
    """Run the coroutine on its own event loop in a daemon thread, for at most ``timeout_s``.

    A thread keeps this callable from sync code whether or not the caller already runs an
    event loop, and a daemon thread can never keep the process alive.
    """
    from aiagent.engines.security.deps.osv_client import OsvUnavailable

    outcome: list[BaseException | None] = []

    def work() -> None:
        try:
            asyncio.run(asyncio.wait_for(make(), timeout_s))
            outcome.append(None)
        except BaseException as exc:  # handed to the calling thread below
            outcome.append(exc)

    thread = threading.Thread(target=work, name="osv-online", daemon=True)
    thread.start()
    thread.join(timeout_s)
    error = outcome[0] if outcome else TimeoutError()
    if isinstance(error, TimeoutError):
        raise OnlineLookupError(f"no answer from {url} within {timeout_s:g} s")
    if isinstance(error, OsvUnavailable):
        raise OnlineLookupError(str(error))
    if error is not None:
        raise OnlineLookupError(f"{url}: {type(error).__name__}")

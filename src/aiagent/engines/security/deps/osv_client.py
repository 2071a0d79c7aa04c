"""A small async client for the OSV API (https://google.github.io/osv.dev/api/).

``POST /v1/querybatch`` takes up to 1000 queries of ``{package: {name, ecosystem},
version}`` and answers, in the same order, ``{vulns: [{id, modified}], next_page_token?}``
per query; a query with a token is asked again with ``page_token`` until no token comes
back. ``GET /v1/vulns/{id}`` gives the full record. Server errors (5xx, 429) and broken
connections are retried once; anything else that goes wrong is :class:`OsvUnavailable`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import httpx

from aiagent import __version__

MAX_BATCH = 1000  # the API's limit of queries per querybatch request
MAX_ROUNDS = 50  # pages followed per query before giving up on a runaway token
CONCURRENT_FETCHES = 8
RETRY_DELAY_S = 0.5
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


class OsvUnavailable(Exception):
    """The OSV API could not answer; the message is one line for the user."""


class OsvClient:
    def __init__(self, base_url: str, http: httpx.AsyncClient, retries: int = 1) -> None:
        self.base_url = base_url.rstrip("/")
        self.http = http
        self.retries = retries

    async def query_batch(self, queries: list[dict[str, Any]]) -> list[list[dict[str, str]]]:
        """The vulnerability refs for each query, every page followed, in input order."""
        found: list[list[dict[str, str]]] = [[] for _ in queries]
        pending = list(enumerate(queries))
        for _ in range(MAX_ROUNDS):
            if not pending:
                return found
            pending = await self._round(pending, found)
        raise OsvUnavailable(f"{self.base_url}/v1/querybatch kept returning page tokens")

    async def _round(self, pending: list[tuple[int, dict[str, Any]]],
                     found: list[list[dict[str, str]]]) -> list[tuple[int, dict[str, Any]]]:
        again = []
        for start in range(0, len(pending), MAX_BATCH):
            chunk = pending[start:start + MAX_BATCH]
            results = await self._post_batch([query for _, query in chunk])
            for (index, query), result in zip(chunk, results, strict=True):
                found[index].extend(result["vulns"])
                if result["token"]:
                    again.append((index, {**query, "page_token": result["token"]}))
        return again

    async def _post_batch(self, queries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        url = f"{self.base_url}/v1/querybatch"
        body = await self._request("POST", url, {"queries": queries})
        results = body.get("results") if isinstance(body, dict) else None
        if not isinstance(results, list) or len(results) != len(queries):
            raise OsvUnavailable(f"{url} gave an answer of an unexpected shape")
        return [_batch_result(url, result) for result in results]

    async def get_vulns(self, ids: list[str],
                        on_record: Callable[[dict[str, Any]], None] | None = None,
                        ) -> dict[str, dict[str, Any]]:
        """Full records by id, a few at a time, each handed to ``on_record`` as it arrives
        (so a lookup cut short keeps what it got); ids the server does not know are left out."""
        gate = asyncio.Semaphore(CONCURRENT_FETCHES)

        async def one(vuln_id: str) -> dict[str, Any] | None:
            async with gate:
                record = await self.get_vuln(vuln_id)
            if record is not None and on_record is not None:
                on_record(record)
            return record

        records = await asyncio.gather(*(one(i) for i in ids))
        return {r["id"]: r for r in records if r is not None}

    async def get_vuln(self, vuln_id: str) -> dict[str, Any] | None:
        url = f"{self.base_url}/v1/vulns/{quote(vuln_id, safe='')}"
        record = await self._request("GET", url, None, missing_ok=True)
        if record is None:
            return None
        if not isinstance(record, dict) or record.get("id") != vuln_id:
            raise OsvUnavailable(f"{url} did not answer with the record {vuln_id}")
        return record

    async def _request(self, method: str, url: str, body: dict[str, Any] | None,
                       missing_ok: bool = False) -> Any:
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                response = await self.http.request(method, url, json=body)
            except httpx.TimeoutException:
                raise OsvUnavailable(f"no answer from {self.base_url} in time") from None
            except httpx.TransportError as exc:
                if last:
                    raise OsvUnavailable(f"cannot reach {self.base_url} ({_reason(exc)})") from None
            else:
                if response.status_code == 404 and missing_ok:
                    return None
                if response.status_code not in RETRY_STATUS or last:
                    return _decode(url, response)
            await asyncio.sleep(RETRY_DELAY_S)
        raise AssertionError("unreachable")


def _batch_result(url: str, result: Any) -> dict[str, Any]:
    if not isinstance(result, dict):
        raise OsvUnavailable(f"{url} gave an answer of an unexpected shape")
    vulns = result.get("vulns") or []
    token = result.get("next_page_token") or ""
    if not isinstance(vulns, list) or not isinstance(token, str) or not all(
            isinstance(v, dict) and isinstance(v.get("id"), str) for v in vulns):
        raise OsvUnavailable(f"{url} gave an answer of an unexpected shape")
    refs = [{"id": v["id"], "modified": str(v.get("modified") or "")} for v in vulns]
    return {"vulns": refs, "token": token}


def _decode(url: str, response: httpx.Response) -> Any:
    if response.status_code != 200:
        raise OsvUnavailable(f"{url} answered HTTP {response.status_code}")
    try:
        return response.json()
    except ValueError:
        raise OsvUnavailable(f"{url} did not answer with JSON") from None


def _reason(exc: httpx.TransportError) -> str:
    if isinstance(exc, httpx.ConnectError):
        return "connection failed"
    return type(exc).__name__


def user_agent() -> str:
    return f"aiagent/{__version__} (security-audit)"

"""The simulators ``xcrun simctl list -j`` reports, and choosing one by name or UDID."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from aiagent.agent.tools.apple.commands import run_json
from aiagent.contracts.tools import ToolError

_RUNTIME_ID = re.compile(r"SimRuntime\.(?P<platform>[A-Za-z]+)-(?P<version>[\d-]+)$")


@dataclass(frozen=True, slots=True)
class Device:
    name: str
    udid: str
    state: str
    runtime: str  # "iOS 18.1"
    platform: str  # iOS, watchOS, tvOS, xrOS
    version: tuple[int, ...]

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("version")
        return out

    def label(self) -> str:
        return f"{self.name} ({self.runtime}, {self.state})"


def parse_list(data: dict[str, Any]) -> list[Device]:
    """Available devices from ``simctl list -j`` (its ``devices`` and ``runtimes``)."""
    names = {r.get("identifier"): r for r in data.get("runtimes", []) if isinstance(r, dict)}
    found = []
    for runtime_id, devices in (data.get("devices") or {}).items():
        runtime = names.get(runtime_id, {})
        platform, version = _runtime(runtime_id, runtime)
        for d in devices if isinstance(devices, list) else []:
            if not isinstance(d, dict) or d.get("isAvailable") is False:
                continue
            found.append(Device(str(d.get("name", "")), str(d.get("udid", "")), str(d.get("state", "")),
                                f"{platform} {'.'.join(map(str, version))}", platform, version))
    return sorted(found, key=lambda d: (d.platform, [-v for v in d.version], d.name))


def _runtime(runtime_id: str, runtime: dict[str, Any]) -> tuple[str, tuple[int, ...]]:
    if runtime.get("platform") and runtime.get("version"):
        return str(runtime["platform"]), _version(str(runtime["version"]))
    m = _RUNTIME_ID.search(runtime_id)
    if m is None:
        return runtime_id, ()
    return m["platform"], _version(m["version"].replace("-", "."))


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".") if p.isdigit())


async def devices(cwd: Path) -> list[Device]:
    data = await run_json(["xcrun", "simctl", "list", "-j"], cwd)
    if not isinstance(data, dict):
        raise ToolError("xcrun simctl list -j: unexpected answer (not a JSON object)")
    return parse_list(data)


def choose(found: list[Device], name: str | None = None, udid: str | None = None,
           booted: bool = False) -> Device:
    """The device named ``name`` or with ``udid``; with neither, a booted one (or, unless
    ``booted``, the newest iPhone). Errors list what is there."""
    if udid:
        for d in found:
            if d.udid.lower() == udid.lower():
                return d
        raise ToolError(f"no simulator with UDID {udid}; {_available(found)}")
    if name:
        same = [d for d in found if d.name == name] or [d for d in found if d.name.lower() == name.lower()]
        if not same:
            raise ToolError(f"no simulator named {name!r}; {_available(found)}")
        return next((d for d in same if d.state == "Booted"), same[0])
    live = [d for d in found if d.state == "Booted"]
    if live:
        return live[0]
    if booted:
        raise ToolError(f"no simulator is booted: boot one with sim_boot; {_available(found)}")
    return default_device(found)


def default_device(found: list[Device]) -> Device:
    """A booted iOS simulator, else an iPhone on the newest iOS runtime."""
    ios = [d for d in found if d.platform == "iOS"]
    for pool in ([d for d in ios if d.state == "Booted"], [d for d in ios if d.name.startswith("iPhone")], ios):
        if pool:
            return max(pool, key=lambda d: (d.state == "Booted", d.version, *_model(d.name)))
    raise ToolError("no iOS simulator is installed: add one in Xcode > Settings > Platforms "
                    "(or `xcodebuild -downloadPlatform iOS`)")


def _model(name: str) -> tuple[int, int]:
    """The newest model first; of one model, the plain one (iPhone 16 before iPhone 16 Pro)."""
    m = re.search(r"\d+", name)
    return (int(m.group()) if m else 0, -len(name))


def _available(found: list[Device], limit: int = 12) -> str:
    if not found:
        return "no simulators are installed"
    shown = ", ".join(d.label() for d in found[:limit])
    more = f" and {len(found) - limit} more (sim_list)" if len(found) > limit else ""
    return f"available: {shown}{more}"


def check_destination(destination: str, found: list[Device]) -> None:
    """A simulator destination must name a simulator that exists (name= or id=)."""
    fields = dict(p.split("=", 1) for p in destination.split(",") if "=" in p)
    if "Simulator" not in fields.get("platform", ""):
        return
    if fields.get("id"):
        choose(found, udid=fields["id"].strip())
    elif fields.get("name"):
        name = fields["name"].strip()
        matches = [d for d in found if d.name == name]
        os_version = fields.get("OS", "").strip()
        wanted = os_version not in ("", "latest")
        if matches and wanted and not any(".".join(map(str, d.version)).startswith(os_version) for d in matches):
            raise ToolError(f"unknown destination {destination!r}: {name} has no {os_version} runtime; "
                                f"{_available(matches)}")
        if not matches:
            choose(found, name=name)

"""Simulator tools over ``xcrun simctl`` (FR-6.3): list, boot, shut down, install,
launch, screenshot, record video, read the log. Results are JSON."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import struct
from pathlib import Path
from typing import Any

from aiagent.agent.tools.apple import simctl
from aiagent.agent.tools.apple.commands import last_line, run_small
from aiagent.agent.tools.apple.gating import GatedTool
from aiagent.agent.tools.apple.schemas import load_schema
from aiagent.agent.tools.images import Images
from aiagent.agent.tools.tooldef import int_arg
from aiagent.agent.tools.workspace import resolve_path
from aiagent.contracts.tools import READ, ToolContext, ToolEffect, ToolError, ToolResult
from aiagent.infra.process.capture import Capture
from aiagent.infra.process.runner import Limits, new_tag, spawn
from aiagent.infra.process.tree import TAG_VARIABLE

BUNDLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]{0,254}$")
LOG_MAX_LINES = 400
RECORD_MAX_SECONDS = 120


def _json(data: Any) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False)


async def _device(args: dict[str, Any], ctx: ToolContext, booted: bool = False) -> simctl.Device:
    found = await simctl.devices(ctx.workspace)
    return simctl.choose(found, args.get("device_name"), args.get("device_udid"), booted=booted)


async def _simctl(ctx: ToolContext, *args: str, ok: tuple[str, ...] = ()) -> str:
    code, out, err = await run_small(["xcrun", "simctl", *args], ctx.workspace)
    if code != 0 and not any(text in err + out for text in ok):
        raise ToolError(f"xcrun simctl {args[0]} failed (exit {code}): {last_line(err or out)}")
    return out


class SimListTool(GatedTool):
    name = "sim_list"
    description = "List the iOS/watchOS/tvOS/visionOS simulators with their runtime and state (xcrun simctl list -j)."
    effect = READ
    input_schema = load_schema("sim_list.json")

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        found = await simctl.devices(ctx.workspace)
        runtime, state = args.get("runtime"), args.get("state")
        if runtime:
            found = [d for d in found if d.runtime.lower() == str(runtime).lower()
                     or d.runtime.lower().startswith(str(runtime).lower() + ".")]
        if state:
            found = [d for d in found if d.state == state]
        return _json({"devices": [d.as_dict() for d in found], "count": len(found)})


class SimBootTool(GatedTool):
    name = "sim_boot"
    description = "Boot a simulator by name or UDID (default: an iPhone on the newest iOS)."
    effect = ToolEffect.of("execute")
    input_schema = load_schema("sim_device.json")

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        device = await _device(args, ctx)
        await _simctl(ctx, "boot", device.udid, ok=("current state: Booted",))
        return _json({"booted": device.name, "udid": device.udid, "runtime": device.runtime,
                      "was_booted": device.state == "Booted"})


class SimShutdownTool(GatedTool):
    name = "sim_shutdown"
    description = "Shut down a simulator by name or UDID (default: the booted one)."
    effect = ToolEffect.of("execute")
    input_schema = load_schema("sim_device.json")

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        device = await _device(args, ctx, booted=True)
        await _simctl(ctx, "shutdown", device.udid, ok=("current state: Shutdown",))
        return _json({"shutdown": device.name, "udid": device.udid})


class SimInstallTool(GatedTool):
    name = "sim_install"
    description = "Install a built .app bundle on a booted simulator."
    effect = ToolEffect.of("execute", path_args=("app_path",))
    input_schema = load_schema("sim_install.json")

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        app = resolve_path(ctx, str(args["app_path"]))
        if app.suffix != ".app" or not app.is_dir():
            raise ToolError(f"app_path {args['app_path']}: not an .app bundle (build with xcode_build first)")
        device = await _device(args, ctx, booted=True)
        if device.state != "Booted":
            raise ToolError(f"{device.name} is not booted: boot it with sim_boot first")
        await _simctl(ctx, "install", device.udid, str(app))
        return _json({"installed": app.name, "device": device.name, "udid": device.udid})


class SimLaunchTool(GatedTool):
    name = "sim_launch"
    description = "Launch an installed app on a booted simulator by bundle identifier."
    effect = ToolEffect.of("execute")
    input_schema = load_schema("sim_launch.json")

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        bundle = str(args["bundle_id"])
        if not BUNDLE_ID.match(bundle):
            raise ToolError(f"bundle_id {bundle!r}: not a bundle identifier (like com.example.MyApp)")
        device = await _device(args, ctx, booted=True)
        out = await _simctl(ctx, "launch", device.udid, bundle)
        m = re.search(r":\s*(\d+)\s*$", out.strip())
        return _json({"launched": bundle, "device": device.name, "pid": int(m.group(1)) if m else None})


class SimScreenshotTool(GatedTool):
    name = "sim_screenshot"
    description = ("Save a PNG screenshot of a booted simulator; returns its path and size, "
                   "and the image itself to a model that accepts images.")
    effect = ToolEffect.of("execute", "write", path_args=("output_path",))
    input_schema = load_schema("sim_screenshot.json")

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        out = _output(ctx, args.get("output_path") or "/tmp/simulator-screenshot.png", ".png")
        device = await _device(args, ctx, booted=True)
        await _simctl(ctx, "io", device.udid, "screenshot", str(out))
        if not out.is_file():
            raise ToolError(f"simctl reported success but wrote no file at {out}")
        info = {"path": str(out), "device": device.name, "bytes": out.stat().st_size, **_png_size(out)}
        images = Images()
        await asyncio.to_thread(images.add_file, out, out.name)
        text = "\n".join([_json(info), *images.notes])
        return ToolResult(text, metadata={"image_path": str(out), "media_type": "image/png"},
                          images=images.parts)


class SimRecordTool(GatedTool):
    name = "sim_record"
    description = f"Record the screen of a booted simulator to an .mp4 for a few seconds (at most {RECORD_MAX_SECONDS})."
    effect = ToolEffect.of("execute", "write", path_args=("output_path",))
    input_schema = load_schema("sim_record.json")

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        seconds = max(1, min(RECORD_MAX_SECONDS, int_arg(args, "seconds", 10)))
        out = _output(ctx, args.get("output_path") or "/tmp/simulator-recording.mp4", ".mp4")
        device = await _device(args, ctx, booted=True)
        code = await _record(ctx, device, out, seconds)
        if not out.is_file():
            raise ToolError(f"recordVideo wrote no file (exit {code})")
        return _json({"path": str(out), "device": device.name, "seconds": seconds, "bytes": out.stat().st_size})


async def _record(ctx: ToolContext, device: simctl.Device, out: Path, seconds: int) -> int | None:
    """``recordVideo`` runs until SIGINT, which makes it finish the file."""

    env = {**os.environ, TAG_VARIABLE: new_tag()}
    argv = ["xcrun", "simctl", "io", device.udid, "recordVideo", "--codec=h264", "--force", str(out)]
    running = await spawn(argv, cwd=ctx.workspace, env=env, capture=Capture(None, 4096, 4096, 0))

    async def stop() -> None:
        await asyncio.sleep(seconds)
        if not running.done:
            os.kill(running.pid, signal.SIGINT)

    stopper = asyncio.create_task(stop())
    try:
        outcome = await running.supervise(Limits(timeout=seconds + 30.0), ctx.cancel)
    finally:
        stopper.cancel()
    return outcome.exit_code


class SimLogTool(GatedTool):
    name = "sim_log"
    description = (f"Show a booted simulator's recent log (`log show`), filtered by an NSPredicate; "
                   f"at most the last {LOG_MAX_LINES} lines.")
    effect = READ
    input_schema = load_schema("sim_log.json")

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        minutes = max(1, min(60, int_arg(args, "last_minutes", 5)))
        device = await _device(args, ctx, booted=True)
        argv = ["spawn", device.udid, "log", "show", "--style", "compact", "--last", f"{minutes}m"]
        if args.get("predicate"):
            argv += ["--predicate", str(args["predicate"])]
        text = await _simctl(ctx, *argv)
        lines = text.splitlines()
        kept = lines[-LOG_MAX_LINES:]
        return _json({"device": device.name, "lines": len(lines), "shown": len(kept),
                      "cut": len(lines) - len(kept), "log": "\n".join(kept)})


def _output(ctx: ToolContext, raw: str, suffix: str) -> Path:
    path = Path(os.path.expanduser(raw))
    path = path if path.is_absolute() else resolve_path(ctx, raw)
    if path.suffix.lower() != suffix:
        raise ToolError(f"output_path {raw}: must end in {suffix}")
    if not path.parent.is_dir():
        raise ToolError(f"output_path {raw}: folder {path.parent} does not exist")
    return path


def _png_size(path: Path) -> dict[str, int]:
    with path.open("rb") as fh:
        head = fh.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return {}
    width, height = struct.unpack(">II", head[16:24])
    return {"width": width, "height": height}

"""``schedule_task``: the model schedules a prompt to run headless on a cron expression.

The job is stored in the user's database; ``aiagent serve`` in that folder runs it (see
docs/web.md, "Scheduled tasks"). Each call asks for approval (a job runs later on its own)
and a scheduled run never has more permissions than a headless run in its folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiagent.agent.tools.tooldef import BuiltinTool, in_thread, schema, string
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError
from aiagent.infra.store.schedules import ScheduleError, ScheduleStore


def _add(cron: str, prompt: str, folder: Path) -> str:
    from datetime import datetime


    store = ScheduleStore.open()
    try:
        job = store.add(cron, prompt, folder, created_by="tool")
    except ScheduleError as exc:
        raise ToolError(str(exc)) from None
    finally:
        store.close()
    first = datetime.fromtimestamp(job.next_run).astimezone().strftime("%Y-%m-%d %H:%M %Z")
    return (f"Scheduled task {job.id}: `{job.cron}` in {job.folder}; first run {first}. "
            "It runs while `aiagent serve` is running in that folder; "
            f"`aiagent schedule remove {job.id}` removes it.")


class ScheduleTaskTool(BuiltinTool):
    name = "schedule_task"
    description = (
        "Schedules a prompt to run later, unattended, on a cron expression (five fields: "
        "minute hour day-of-month month day-of-week, local time) in a folder of this "
        "workspace. The scheduled run does not see this conversation: make the prompt "
        "self-contained (what to do, where to write the result). It can only use the "
        "permissions a headless run in that folder has."
    )
    input_schema = schema(
        {
            "cron": string("Cron expression, e.g. `17 3 * * *` for every day at 03:17."),
            "prompt": string("The self-contained task for the scheduled run."),
            "folder": string("Folder to run in: the workspace (default) or a folder inside it."),
        },
        ["cron", "prompt"],
    )
    # a job acts later without anyone watching: it always asks, like a command
    effect = ToolEffect.of("write", "execute")

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        workspace = ctx.workspace.resolve()
        raw = str(args.get("folder") or "")
        folder = (workspace / Path(raw).expanduser()).resolve() if raw else workspace
        if not folder.is_relative_to(workspace):
            raise ToolError(f"folder {raw!r}: must be the workspace or a folder inside it")
        return await in_thread(_add, str(args["cron"]), str(args["prompt"]), folder)

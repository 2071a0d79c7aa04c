"""The API for scheduled tasks and session export (the guard's token applies to all):

    GET    /api/schedules                        this folder's jobs, each with its last runs
    POST   /api/schedules   {cron, prompt, folder?}  a new job (folder: this one or inside it)
    DELETE /api/schedules/{id}                   remove a job
    GET    /api/sessions/{id}/export?format=md|json  the stored conversation, as a download
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from aiagent.agent.core.export import to_json, to_markdown
from aiagent.frontends.web.api import hub_of, read_json, text_field
from aiagent.frontends.web.hub import HubError
from aiagent.infra.store.schedules import Run, Schedule, ScheduleError, ScheduleStore

CRON_MAX = 200


def store_of(request: Request) -> ScheduleStore:
    store: ScheduleStore = request.app.state.scheduler.store
    return store


def job_data(job: Schedule, runs: list[Run]) -> dict[str, Any]:
    return {"id": job.id, "cron": job.cron, "prompt": job.prompt, "folder": job.folder,
            "created_by": job.created_by, "created_at": job.created_at,
            "next_run": job.next_run, "missed": job.missed, "missed_note": job.missed_note,
            "runs": [{"session_id": r.session_id, "status": r.status, "note": r.note,
                      "due_at": r.due_at, "started_at": r.started_at,
                      "finished_at": r.finished_at} for r in runs]}


def folder_inside(raw: str, workspace: Path) -> Path:
    """The job's folder: the server's own, or one inside it (never elsewhere)."""
    path = (workspace / Path(raw).expanduser()).resolve() if raw.strip() else workspace
    if not path.is_relative_to(workspace):
        raise HubError(400, f"folder {raw!r}: must be this server's folder or inside it")
    return path


async def schedules(request: Request) -> Response:
    hub, store = hub_of(request), store_of(request)
    workspace = Path(hub.workspace)
    if request.method == "POST":
        data = await read_json(request)
        cron = text_field(data, "cron", required=True, limit=CRON_MAX)
        prompt = text_field(data, "prompt", required=True, limit=20_000)
        folder = folder_inside(text_field(data, "folder", required=False, limit=4096), workspace)
        try:
            job = store.add(cron, prompt, folder, created_by="page",
                            now=request.app.state.scheduler.clock())
        except ScheduleError as exc:
            raise HubError(exc.status, str(exc)) from None
        return JSONResponse(job_data(job, []), status_code=201)
    jobs = store.list(workspace)
    return JSONResponse({"schedules": [job_data(j, store.runs(j.id, 5)) for j in jobs]})


async def schedule(request: Request) -> Response:
    store, workspace = store_of(request), Path(hub_of(request).workspace)
    try:
        job = store.get(request.path_params["jid"])
        if not Path(job.folder).is_relative_to(workspace):
            raise HubError(404, f"no scheduled task {job.id!r} in this folder")
        store.remove(job.id)
    except ScheduleError as exc:
        raise HubError(exc.status, str(exc)) from None
    return Response(status_code=204)


async def export(request: Request) -> Response:

    hub = hub_of(request)
    info = hub.info(request.path_params["sid"])
    kind = request.query_params.get("format", "md")
    if kind not in ("md", "json"):
        raise HubError(400, "format must be md or json")
    rows = hub.store.message_rows(info.id)
    if kind == "json":
        body, media = to_json(info, rows), "application/json"
    else:
        body, media = to_markdown(info, rows), "text/markdown"
    disposition = f'attachment; filename="aiagent-session-{info.id}.{kind}"'
    return Response(body, media_type=media, headers={"content-disposition": disposition})


ROUTES = [
    Route("/api/schedules", schedules, methods=["GET", "POST"]),
    Route("/api/schedules/{jid}", schedule, methods=["DELETE"]),
    Route("/api/sessions/{sid}/export", export, methods=["GET"]),
]

"""The HTTP API: JSON in, JSON out (errors as ``{"error": "…"}``), turns as SSE streams.

    GET    /api/info                          workspace, provider, model
    GET    /api/sessions                      this folder's sessions, newest first
    POST   /api/sessions        {title, engine}  a new session (engine: aiagent or a
                                              configured [web.engines.NAME])
    GET    /api/sessions/{id}                 one session with its messages (history) and
                                              its last plan (null when none)
    PATCH  /api/sessions/{id}   {title}       rename
    DELETE /api/sessions/{id}                 delete (stops its turn first)
    POST   /api/sessions/{id}/messages {text, images}  run a turn: the answer is its SSE
                                              stream; images: [{name, data}] (base64 or
                                              a data: URL; checked, else 400)
    GET    /api/sessions/{id}/events          the current turn's stream again
                                              (Last-Event-ID: resume after that event)
    POST   /api/sessions/{id}/approvals/{aid} {answer}   once|session|project|always|deny
    POST   /api/sessions/{id}/stop            cancel the turn, kill its commands
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from aiagent.agent.core.images import MAX_ATTACHED, ImageInputError, check_count, decode_image
from aiagent.contracts.messages import MAX_IMAGE_BASE64, ImageBlock
from aiagent.frontends.web.engines import OWN, engines_of
from aiagent.frontends.web.hub import Hub, HubError, info_data
from aiagent.frontends.web.turnlog import TurnLog, parse_event_id

MAX_BODY = 1 << 20  # a message larger than 1 MiB is refused (413)
MAX_IMAGES_BODY = MAX_BODY + MAX_ATTACHED * (MAX_IMAGE_BASE64 + 1024)  # with images attached
TITLE_MAX = 200


def hub_of(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


async def read_json(request: Request, limit: int = MAX_BODY) -> dict[str, Any]:
    """The request's JSON object; HubError 413 past ``limit`` bytes, 400 if not JSON."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise HubError(413, f"request body larger than {limit} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise HubError(413, f"request body larger than {limit} bytes")
    try:
        data = json.loads(body or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise HubError(400, "the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise HubError(400, "the request body must be a JSON object")
    return data


def text_field(data: dict[str, Any], name: str, *, required: bool, limit: int) -> str:
    value = data.get(name, "")
    if not isinstance(value, str):
        raise HubError(400, f"{name!r} must be a string")
    if required and not value.strip():
        raise HubError(400, f"{name!r} is required")
    if len(value) > limit:
        raise HubError(413, f"{name!r} longer than {limit} characters")
    return value


def sse(log: TurnLog, after: int = 0) -> StreamingResponse:
    return StreamingResponse(log.follow(after), media_type="text/event-stream",
                             headers={"x-accel-buffering": "no", "x-turn-id": log.id})


async def info(request: Request) -> Response:
    hub = hub_of(request)
    settings = hub.app.settings

    chosen = hub.app.choice_or_named()
    return JSONResponse({"workspace": hub.workspace, "provider": chosen.name,
                         "model": chosen.model, "engines": [OWN, *engines_of(settings)]})


async def sessions(request: Request) -> Response:
    hub = hub_of(request)
    if request.method == "POST":
        data = await read_json(request)
        title = text_field(data, "title", required=False, limit=TITLE_MAX)
        engine = text_field(data, "engine", required=False, limit=64) or "aiagent"
        return JSONResponse(hub.create(title, engine), status_code=201)
    return JSONResponse({"sessions": hub.list()})


async def session(request: Request) -> Response:
    hub, sid = hub_of(request), request.path_params["sid"]
    if request.method == "PATCH":
        data = await read_json(request)
        return JSONResponse(hub.rename(sid, text_field(data, "title", required=True,
                                                       limit=TITLE_MAX)))
    if request.method == "DELETE":
        await hub.delete(sid)
        return Response(status_code=204)
    return JSONResponse(hub.open(sid))


async def messages(request: Request) -> Response:
    hub, sid = hub_of(request), request.path_params["sid"]
    hub.info(sid)
    data = await read_json(request, MAX_IMAGES_BODY)
    text = text_field(data, "text", required=True, limit=MAX_BODY)
    return sse(hub.send(sid, text, images_field(data)))


def images_field(data: dict[str, Any]) -> list[ImageBlock]:
    """The attached images, checked as every attachment is (400 naming the bad one)."""
    items = data.get("images") or []
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise HubError(400, "'images' must be a list of {name, data} objects")
    try:
        images = [decode_image(str(i.get("data") or ""), str(i.get("name") or "image")[:200])
                  for i in items]
        check_count(images)
    except ImageInputError as exc:
        raise HubError(400, str(exc)) from None
    return images


async def events(request: Request) -> Response:
    hub, sid = hub_of(request), request.path_params["sid"]
    last = parse_event_id(request.headers.get("last-event-id")
                          or request.query_params.get("last_event_id"))
    turn_id = last[0] if last else request.query_params.get("turn")
    log = hub.turn(sid, turn_id)
    return sse(log, last[1] if last else 0)


async def approval(request: Request) -> Response:
    hub, sid = hub_of(request), request.path_params["sid"]
    data = await read_json(request)
    answer = text_field(data, "answer", required=True, limit=20)
    hub.answer(sid, request.path_params["aid"], answer)
    return JSONResponse({"ok": True})


async def stop(request: Request) -> Response:
    stopped = hub_of(request).stop(request.path_params["sid"])
    return JSONResponse({"stopped": stopped})


async def hub_error(request: Request, exc: Exception) -> Response:
    status = exc.status if isinstance(exc, HubError) else 500
    return JSONResponse({"error": str(exc)}, status_code=status)


async def http_error(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 500)
    return JSONResponse({"error": str(getattr(exc, "detail", "") or exc)}, status_code=status)


ROUTES = [
    Route("/api/info", info, methods=["GET"]),
    Route("/api/sessions", sessions, methods=["GET", "POST"]),
    Route("/api/sessions/{sid}", session, methods=["GET", "PATCH", "DELETE"]),
    Route("/api/sessions/{sid}/messages", messages, methods=["POST"]),
    Route("/api/sessions/{sid}/events", events, methods=["GET"]),
    Route("/api/sessions/{sid}/approvals/{aid}", approval, methods=["POST"]),
    Route("/api/sessions/{sid}/stop", stop, methods=["POST"]),
]
__all__ = ["ROUTES", "hub_error", "http_error", "info_data"]

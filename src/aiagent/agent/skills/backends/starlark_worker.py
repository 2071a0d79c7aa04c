"""The Starlark worker: a child process that evaluates skills' Starlark code for aiagent.

It runs with an address-space limit and answers JSON-RPC requests on stdin/stdout:
``load`` (evaluate a skill's file, returning what it registered), ``call`` (run a registered
handler or a top-level function) and ``unload``. Host functions are requested from aiagent
with ``host/<name>``; the worker waits for the answer and serves nested requests meanwhile
(one skill invoking another). A computation that runs past its budget is stopped by the
evaluator's cancellation check. Only the standard library and ``starlark`` are imported.
"""

from __future__ import annotations

import json
import os
import sys
import time
from importlib import resources
from typing import Any

import starlark as sl

DEFAULT_BUDGET = 10.0
MAX_CALLSTACK = 200


class Worker:
    def __init__(self, out: Any, inp: Any) -> None:
        self.out, self.inp = out, inp
        self.frozen: dict[str, Any] = {}
        self.next_id = 0
        self.host_wait = 0.0
        self.prelude = sl.parse("<sdk>", _prelude_text(), sl.Dialect.extended())
        self.globals = sl.Globals.extended_by([
            sl.LibraryExtension.StructType, sl.LibraryExtension.Json, sl.LibraryExtension.Map,
            sl.LibraryExtension.Filter, sl.LibraryExtension.Partial,
        ])

    # ---- wire ----------------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        self.out.write(json.dumps({"jsonrpc": "2.0", **message}, default=str) + "\n")
        self.out.flush()

    def host(self, skill: str, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        self.next_id += 1
        rid = f"w{self.next_id}"
        self.send({"id": rid, "method": f"host/{name}", "params": {"skill": skill, "args": args, "kwargs": kwargs}})
        start = time.monotonic()
        try:
            while True:
                message = self.read()
                if message is None:
                    raise SystemExit(0)
                if "method" in message:
                    self.serve(message)  # nested: another skill called while we wait
                    continue
                if message.get("id") != rid:
                    continue
                if message.get("error"):
                    raise RuntimeError(str(message["error"].get("message", "host error")))
                return message.get("result")
        finally:
            self.host_wait += time.monotonic() - start

    def read(self) -> dict[str, Any] | None:
        line = self.inp.readline()
        if not line:
            return None
        message: dict[str, Any] = json.loads(line)
        return message

    def serve(self, message: dict[str, Any]) -> None:
        rid, method, params = message.get("id"), message.get("method"), message.get("params") or {}
        try:
            handler = {"load": self.load, "call": self.call, "unload": self.unload}[str(method)]
            self.send({"id": rid, "result": handler(params)})
        except KeyError:
            self.send({"id": rid, "error": {"code": -32601, "message": f"unknown method {method}"}})
        except Exception as exc:  # noqa: BLE001 - report every failure to the host
            self.send({"id": rid, "error": {"code": -32000, "message": _clean(str(exc))}})

    # ---- methods -------------------------------------------------------------------

    def _options(self, budget: float) -> Any:
        start, waited = time.monotonic(), self.host_wait

        def cancelled() -> bool:
            return time.monotonic() - start - (self.host_wait - waited) > budget

        return sl.EvalOptions(check_cancelled=cancelled, max_callstack_size=MAX_CALLSTACK)

    def load(self, params: dict[str, Any]) -> dict[str, Any]:
        skill = str(params["skill"])
        registrations: list[dict[str, Any]] = []
        module = sl.Module()
        module.add_callable("_host", lambda name, args, kwargs: self.host(skill, name, list(args), dict(kwargs)))
        module.add_callable("_register", lambda kind, name, opts: registrations.append({"kind": kind, "name": name, "opts": dict(opts)}))
        options = self._options(float(params.get("budget", DEFAULT_BUDGET)))
        sl.eval_with(options, module, self.prelude, self.globals)
        ast = sl.parse(str(params["filename"]), str(params["source"]), sl.Dialect.extended())
        sl.eval_with(options, module, ast, self.globals)
        self.frozen[skill] = module.freeze()
        return {"registrations": registrations}

    def call(self, params: dict[str, Any]) -> Any:
        skill = str(params["skill"])
        frozen = self.frozen.get(skill)
        if frozen is None:
            raise RuntimeError(f"skill {skill} is not loaded")
        options = self._options(float(params.get("budget", DEFAULT_BUDGET)))
        kind, name, arg = params["kind"], str(params["name"]), params.get("args")
        if kind == "function":
            if name.startswith("_") or name == "skill_dispatch":
                raise RuntimeError(f"{name} is not a public function of {skill}")
            return frozen.call_with(options, name, *(arg if isinstance(arg, list) else [arg])).value
        return frozen.call_with(options, "skill_dispatch", kind, name, arg).value

    def unload(self, params: dict[str, Any]) -> bool:
        return self.frozen.pop(str(params["skill"]), None) is not None


def _prelude_text() -> str:
    return resources.files(__package__ or "aiagent.agent.skills.backends").joinpath("prelude.star").read_text("utf-8")


def _clean(message: str) -> str:
    if "cancelled" in message.lower() or "canceled" in message.lower():
        return "stopped: the Starlark code ran past its time budget (a runaway loop?)"
    return message.strip()


def limit_memory() -> None:
    import resource

    mb = int(os.environ.get("AIAGENT_STARLARK_MEMORY_MB", "512"))
    if mb > 0:
        cap = mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def main() -> None:
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # anything else written to stdout goes to stderr, not the protocol
    limit_memory()
    worker = Worker(protocol, sys.stdin)
    while (message := worker.read()) is not None:
        if "method" in message:
            worker.serve(message)


if __name__ == "__main__":
    main()

"""The wiki's model passes against FakeLLM with a fixed per-call latency: the pipeline's own
overhead, and how wall time scales with the number of calls and the concurrency.

    .venv/bin/python bench/bench_wiki_model.py [--path src/aiagent] [--latency 0.2] [--runs 3]
        [--modules 10 20 40] [--concurrency 1 4 8]

The code model of ``--path`` (default: this repository's own source) is built once; the
passes (``--depth``, default quick: one call per module) then run in-process through the
real provider stack (``app.make_provider``, OpenAI wire format) against FakeLLM on loopback,
which sleeps ``--latency`` seconds before answering each call. The number of calls is varied
by clustering into at most 10, 20 or 40 modules; concurrency is 1, 4 and 8. For each, the
median wall time of ``--runs`` runs is printed beside ``calls × latency / concurrency`` (what
perfect overlap would cost; waiting for imported modules keeps the real figure above it) and the
overhead measured with zero latency (briefings, checks, HTTP, JSON): NFR-3 asks < 10 min
for 50k lines.

Scheduling before/after: run the same script with ``PYTHONPATH`` pointing at another
checkout's ``src`` (for example one exported with ``git archive``) to time that version's
passes with this harness (docs/wiki.md gives the figures).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def answer(latency: float) -> Any:
    from aiagent.testing import Turn

    module = json.dumps({"purpose": "A module.", "summary": "It does its work.", "key_points": ["One."]})
    synthesis = json.dumps({"architecture": "Layers.", "data_flow": "In, then out.",
                            "data_flow_diagram": "flowchart LR\n  a --> b"})

    def respond(body: dict[str, Any]) -> Turn:
        time.sleep(latency)
        text = json.dumps(body.get("messages", []))
        return Turn(text=synthesis if "as a whole" in text else module, usage=(2000, 150))

    return respond


def build(path: Path, max_modules: int) -> Any:
    from aiagent.engines.wiki.assemble import Context
    from aiagent.engines.wiki.cluster import cluster
    from aiagent.engines.wiki.model import build_model
    from aiagent.engines.wiki.pages import Links
    from aiagent.engines.wiki.scan import scan
    from aiagent.engines.wiki.steering import Steering

    model = build_model(scan(path, Steering()))
    modules = cluster(model, max_modules)
    return Context(model, modules, Links(path, path / "docs" / "wiki"), Steering())


def one_run(ctx: Any, url: str, depth: str, concurrency: int) -> tuple[float, int]:
    from aiagent.app import Application
    from aiagent.engines.wiki.manifest import Plan
    from aiagent.engines.wiki.passes import Analyst, analyse
    from aiagent.infra.config.flags import flags_layer
    from aiagent.infra.config.settings import Settings

    os.environ.update(OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-bench")
    settings = Settings.load(ROOT, flags_layer({"provider": "openai", "model": "gpt-4o"}))
    provider = Application(settings, interactive=False).provider()
    todo = Plan(tuple(m.id for m in ctx.modules), (), "bench")
    ctx.summaries.clear()

    async def run() -> Any:
        try:
            return await analyse(ctx, Analyst(provider, "gpt-4o", depth, concurrency), todo, None, lambda _: None)
        finally:
            await provider.aclose()

    started = time.perf_counter()
    analysis = asyncio.run(run())
    return time.perf_counter() - started, analysis.report.calls


def median_run(ctx: Any, latency: float, depth: str, concurrency: int, runs: int) -> tuple[float, int]:
    from aiagent.testing import FakeLLM

    times, calls = [], 0
    for _ in range(runs):
        with FakeLLM(responder=answer(latency)) as fake:
            wall, calls = one_run(ctx, fake.url + "/v1", depth, concurrency)
        times.append(wall)
    return statistics.median(times), calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", type=Path, default=ROOT / "src" / "aiagent")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--depth", choices=["quick", "standard", "deep"], default="quick")
    parser.add_argument("--modules", type=int, nargs="+", default=[10, 20, 40])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 8])
    args = parser.parse_args()
    import aiagent.engines.wiki.passes as passes

    print(f"passes: {passes.__file__}")
    started = time.perf_counter()
    contexts = {n: build(args.path.resolve(), n) for n in args.modules}
    first = contexts[args.modules[0]]
    lines = first.model.total_lines
    print(f"project: {args.path} — {len(first.model.files)} files, {lines} lines "
          f"(code model built {len(contexts)}x in {time.perf_counter() - started:.1f} s)")
    print(f"latency per call: {args.latency:.2f} s, depth {args.depth}, median of {args.runs} runs\n")
    print(f"{'modules':>7} {'calls':>5} {'conc':>4} {'wall s':>7} {'ideal s':>7} {'overhead s':>10} {'s/call':>7}")
    for ctx in contexts.values():
        for concurrency in args.concurrency:
            bare, _ = median_run(ctx, 0.0, args.depth, concurrency, args.runs)
            wall, calls = median_run(ctx, args.latency, args.depth, concurrency, args.runs)
            ideal = calls * args.latency / concurrency
            print(f"{len(ctx.modules):>7} {calls:>5} {concurrency:>4} {wall:>7.2f} {ideal:>7.2f} "
                  f"{bare:>10.2f} {bare / max(calls, 1):>7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

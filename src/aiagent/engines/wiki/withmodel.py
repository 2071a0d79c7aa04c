"""The model stage of the pipeline: run the passes (:mod:`aiagent.engines.wiki.passes`) on the
plan, put their checked answers into the page tree, and give back what the manifest stores
and the lines said at the end (calls, tokens, cost, truthfulness)."""

from __future__ import annotations

import asyncio
from typing import Any

from aiagent.engines.wiki.assemble import Context
from aiagent.engines.wiki.manifest import PROMPTS_VERSION, Plan
from aiagent.engines.wiki.modelpages import apply
from aiagent.engines.wiki.passes import Analyst, Say, analyse, prompts_version, report_lines
from aiagent.engines.wiki.truth import Names


def prompts_for(analyst: Analyst | None) -> str:

    return prompts_version() if analyst is not None else PROMPTS_VERSION


def model_stage(ctx: Context, analyst: Analyst, todo: Plan, previous: dict[str, object] | None,
                say: Say) -> tuple[dict[str, Any], list[str]]:

    async def run() -> Any:
        try:
            return await analyse(ctx, analyst, todo, previous, say)
        finally:
            await analyst.provider.aclose()

    say(f"model: {analyst.model}, depth {analyst.depth}, up to {analyst.concurrency} calls at once")
    analysis = asyncio.run(run())
    apply(ctx, analysis, Names.of(ctx.model, [m.id for m in ctx.modules] + [m.name for m in ctx.modules]))
    extra = {"analysis": analysis.stored(analyst.depth), "model_report": analysis.report.as_dict()}
    return extra, report_lines(analysis.report, analyst.model)

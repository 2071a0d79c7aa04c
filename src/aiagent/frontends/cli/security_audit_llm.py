"""`aiagent security-audit --llm`: the option group and the set-up of the LLM phase.

The model is chosen as for the main command (``--provider``/``--model``, the environment,
config.toml) and built by ``app.make_provider``, the one set-up path. ``--llm`` without a
usable model is a one-line error with exit 3 before anything is scanned;
``[security] enable_llm_analysis = true`` without one only says that the phase is skipped.
This module stays light: heavy imports happen when the phase runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from aiagent.app import Application
from aiagent.contracts.providers import AuthError
from aiagent.engines.security.analyzers.plan import DEFAULT_BUDGET
from aiagent.engines.security.errors import SecurityConfigError
from aiagent.frontends.cli.settings_load import settings_flags
from aiagent.infra.config.pricing import cost
from aiagent.infra.config.settings import ConfigError, Settings

if TYPE_CHECKING:
    from aiagent.contracts.providers import Provider
    from aiagent.engines.security.analyzers.phase import PhaseOptions
    from aiagent.engines.security.config import SecurityConfig
    from aiagent.engines.security.engine import AuditResult
    from aiagent.infra.config.settings import Settings

EXIT_PROVIDER = 3


@dataclass(frozen=True, slots=True)
class LlmRequest:
    enabled: bool | None = None  # --llm / --no-llm; None: [security] enable_llm_analysis
    budget: int | None = None  # --llm-budget (tokens)
    analyzers: tuple[str, ...] = ()
    provider: str | None = None
    model: str | None = None


class LlmUnavailable(Exception):
    """``--llm`` was asked for and no model can be used (exit 3)."""

    exit_code = EXIT_PROVIDER


_OPTIONS = [
    click.option("--llm/--no-llm", "llm_flag", default=None,
                 help="Also send the riskiest files to a model for analysis (needs a model; "
                      "default: [security] enable_llm_analysis)."),
    click.option("--llm-budget", type=click.IntRange(min=1000), metavar="TOKENS",
                 help="Most tokens the LLM phase may send (default: [security] "
                      "llm_budget_tokens, else 100000)."),
    click.option("--llm-analyzers", metavar="NAMES",
                 help="Comma-separated: auth, taint, logic, crypto, concurrency (default: all)."),
    click.option("--provider", type=click.Choice(["anthropic", "openai", "ollama"]),
                 help="Model provider for --llm."),
    click.option("--model", help="Model for --llm."),
]


def llm_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add the LLM options; the command receives them as one ``llm: LlmRequest``."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        names = (kwargs.pop("llm_analyzers") or "").split(",")
        kwargs["llm"] = LlmRequest(
            kwargs.pop("llm_flag"), kwargs.pop("llm_budget"),
            tuple(dict.fromkeys(n.strip() for n in names if n.strip())),
            kwargs.pop("provider"), kwargs.pop("model"))
        return func(*args, **kwargs)

    for option in reversed(_OPTIONS):
        wrapper = option(wrapper)
    return wrapper


@dataclass(slots=True)
class LlmSetup:
    provider: Provider
    model: str
    options: PhaseOptions

    def apply(self, result: AuditResult, config: SecurityConfig) -> None:
        """Run the phase over ``result`` (in place); its errors end up in the report."""
        import asyncio

        asyncio.run(self._run(result, config))

    async def _run(self, result: AuditResult, config: SecurityConfig) -> None:
        from aiagent.engines.security.analyzers.phase import run_llm_phase

        try:
            await run_llm_phase(self.provider, self.model, result, config, self.options,
                                cost=lambda usage: cost(self.model, usage))
        finally:
            await self.provider.aclose()


def prepare(request: LlmRequest | None, base: Path) -> LlmSetup | None:
    """The phase's set-up when it is to run; :class:`LlmUnavailable` when asked and impossible."""

    request = request or LlmRequest()
    if request.enabled is False:
        return None
    try:
        settings = Settings.load(base, settings_flags({"provider": request.provider,
                                                       "model": request.model}))
    except ConfigError as exc:
        raise SecurityConfigError("config", "", str(exc)) from None
    if request.enabled is None and settings.security.enable_llm_analysis is not True:
        return None
    options = _options(request, settings)
    found = _provider(settings, asked=request.enabled is True)
    return None if found is None else LlmSetup(found[0], found[1], options)


def _provider(settings: Settings, *, asked: bool) -> tuple[Provider, str] | None:

    app = Application(settings, interactive=False)
    try:
        choice = app.resolve()
        provider = app.provider()
    except AuthError as exc:
        if asked:
            raise LlmUnavailable(f"--llm needs a model: {exc}") from None
        click.echo(f"warning: LLM phase skipped ([security] enable_llm_analysis): {exc}",
                   err=True)
        return None
    if choice.note:
        click.echo(f"aiagent: {choice.note}", err=True)
    return provider, choice.model


def _options(request: LlmRequest, settings: Settings) -> PhaseOptions:
    from aiagent.engines.security.analyzers.catalog import select
    from aiagent.engines.security.analyzers.phase import PhaseOptions

    section = settings.security
    analyzers = request.analyzers or tuple(section.llm_analyzers or ())
    select(analyzers, "--llm-analyzers" if request.analyzers else "security.llm_analyzers")
    return PhaseOptions(
        analyzers=analyzers,
        budget_tokens=request.budget or section.llm_budget_tokens or DEFAULT_BUDGET,
        max_calls=section.max_llm_calls,
    )

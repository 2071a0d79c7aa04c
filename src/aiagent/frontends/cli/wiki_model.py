"""``aiagent wiki``'s model options and the set-up of the model passes.

The model is chosen as for the main command (``--provider``/``--model``, the environment,
config.toml) and built through ``app.Application`` — the one set-up path. With no usable
model the wiki is the static one, and one line says what a model would add.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from aiagent.app import Application
from aiagent.contracts.providers import AuthError
from aiagent.engines.wiki.passes import Analyst
from aiagent.frontends.cli.settings_load import load_settings
from aiagent.infra.config.pricing import cost

MODEL_WOULD_ADD = ("a model would add per-module summaries, the architecture and data-flow synthesis, "
                   "design patterns, suggestions and deep-dives (set a key, or start Ollama)")


@dataclass(frozen=True, slots=True)
class ModelRequest:
    use: bool = True  # --no-model: the static wiki even with a key
    depth: str = "standard"
    concurrency: int = 4
    provider: str | None = None
    model: str | None = None


_OPTIONS = [
    click.option("--depth", type=click.Choice(["quick", "standard", "deep"]), default="standard",
                 show_default=True, help="Model passes: module summaries (quick), + synthesis "
                 "(standard), + deep-dives on the most central modules (deep)."),
    click.option("--concurrency", type=click.IntRange(1, 32), default=4, show_default=True,
                 help="Model calls in flight at once."),
    click.option("--no-model", is_flag=True, help="The static wiki only, even when a model is available."),
    click.option("--provider", type=click.Choice(["anthropic", "openai", "ollama"]),
                 help="Model provider for the analysis."),
    click.option("--model", "model_name", help="Model for the analysis."),
]


def model_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add the model options; the command receives them as one ``model: ModelRequest``."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        kwargs["model"] = ModelRequest(not kwargs.pop("no_model"), kwargs.pop("depth"),
                                       kwargs.pop("concurrency"), kwargs.pop("provider"),
                                       kwargs.pop("model_name"))
        return func(*args, **kwargs)

    for option in reversed(_OPTIONS):
        wrapper = option(wrapper)
    return wrapper


def make_analyst(request: ModelRequest, base: Path, say: Callable[[str], None]) -> Any:
    """The passes' :class:`~aiagent.engines.wiki.passes.Analyst`, or None (static wiki, said once).
    ConfigError and ProviderError propagate (the command turns them into one line)."""
    if not request.use:
        return None

    settings = load_settings(base, {"provider": request.provider, "model": request.model})
    app = Application(settings, interactive=False)
    try:
        choice = app.resolve()
        provider = app.provider()
    except AuthError as exc:
        say(f"static wiki only ({exc}); {MODEL_WOULD_ADD}")
        return None
    if choice.note:
        say(choice.note)
    model = choice.model
    return Analyst(provider, model, request.depth, request.concurrency, lambda usage: cost(model, usage))

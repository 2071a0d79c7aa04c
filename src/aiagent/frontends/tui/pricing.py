"""Cost estimates: :mod:`aiagent.agent.core.pricing` (kept here for the TUI's imports)."""

from aiagent.agent.core.pricing import cost, known_models, price_of, run_cost

__all__ = ["cost", "known_models", "price_of", "run_cost"]

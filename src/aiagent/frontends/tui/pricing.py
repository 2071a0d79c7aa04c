"""The price table moved to :mod:`aiagent.infra.config.pricing` (budgets and headless
output use it too); kept for the modules that import it from here."""

from aiagent.infra.config.pricing import cost, known_models, price_of

__all__ = ["cost", "known_models", "price_of"]

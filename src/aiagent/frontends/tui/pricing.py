"""The price table moved to :mod:`aiagent.frontends.pricing` (headless output shows cost
too); kept for the modules that import it from here."""

from aiagent.frontends.pricing import cost, known_models, price_of

__all__ = ["cost", "known_models", "price_of"]

"""The prices moved to :mod:`aiagent.infra.providers.pricing` (the batch's budget, in the app
layer, counts with them too); the front-ends' imports keep working through this name."""

from aiagent.infra.providers.pricing import cost, known_models, price_of

__all__ = ["cost", "known_models", "price_of"]

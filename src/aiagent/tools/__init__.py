"""Tools the model can call. See :mod:`aiagent.tools.base` for the contract."""

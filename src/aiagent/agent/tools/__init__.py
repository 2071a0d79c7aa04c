"""Tools the model can call. See :mod:`aiagent.agent.tools.base` for the contract."""

"""Analysis engines: security audit, wiki, code review and log analysis, as libraries.

Front-ends call them; a model part, when there is one, runs on an agent built by
:mod:`aiagent.app`.
"""

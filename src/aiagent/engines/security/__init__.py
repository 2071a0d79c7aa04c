"""The security analysis engine: a library that audits a source tree.

Front-ends (``aiagent security-audit``, code review, the wiki) call
:func:`aiagent.engines.security.engine.run_audit` and render the :class:`AuditResult` with a
reporter from :mod:`aiagent.engines.security.report`. Nothing here prints.
"""

from aiagent.engines.security.finding import (
    AttackChain,
    Category,
    Confidence,
    Finding,
    Location,
    Severity,
)

__all__ = ["AttackChain", "Category", "Confidence", "Finding", "Location", "Severity"]

"""The security analysis engine: a library that audits a source tree.

Front-ends (``aiagent security-audit``, code review, the wiki) call
:func:`aiagent.security.engine.run_audit` and render the :class:`AuditResult` with a
reporter from :mod:`aiagent.security.report`. Nothing here prints.
"""

from aiagent.security.finding import (
    AttackChain,
    Category,
    Confidence,
    Finding,
    Location,
    Severity,
)

__all__ = ["AttackChain", "Category", "Confidence", "Finding", "Location", "Severity"]

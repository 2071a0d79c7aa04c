"""Skills: pluggable units that add tools, instructions, workflows, security rules and
output transforms (spec §4). Read in the portable ``SKILL.md`` format too.

Start at :mod:`aiagent.agent.skills.runtime` (the runtime), :mod:`aiagent.agent.skills.loader`
(discovery) and :mod:`aiagent.agent.skills.manifest` (the manifest). Nothing is imported here,
so ``import aiagent.agent.skills`` stays cheap.
"""

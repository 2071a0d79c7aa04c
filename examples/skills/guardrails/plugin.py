"""Guardrails: an in-process Python skill using the public SDK."""

from aiagent.sdk import SkillContext, hook_result


def register(ctx: SkillContext) -> None:
    blocked = [str(b) for b in ctx.config.get("blocked", [])]

    async def before_tool_call(event: dict) -> object:
        call = event["tool_call"]
        command = " ".join(str(v) for v in call["args"].values() if isinstance(v, str))
        for pattern in blocked:
            if pattern in command:
                return hook_result(cancel=True, reason=f"guardrails: {pattern!r} is not allowed")
        return None

    def rules(_args: dict) -> str:
        return "Blocked command patterns:\n" + "\n".join(f"- {b}" for b in blocked)

    ctx.register_hook("on_before_tool_call", before_tool_call, priority=10)
    ctx.register_tool("guardrail_rules", rules, description="List the command patterns guardrails blocks")

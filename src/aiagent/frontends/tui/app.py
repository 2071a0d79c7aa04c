"""The interactive app: read input, dispatch it (message, ``/command``, ``!shell``), run
turns, keep the status line current. Agent logic lives in the core; this is the glue.

The app holds the parts; each keeps its own state and is changed through its methods:
the :class:`~.screen.Screen` (output), :class:`~.state.NextMessage`,
:class:`~.state.ReadLoop`, :class:`~.state.ToolOutput`, :class:`~.state.ContextMeter`
and the :class:`~.checkpoint.CheckpointTracker`. Only this module sets the app's fields.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent import __version__
from aiagent.frontends.tui import prepare, render
from aiagent.frontends.tui.actions import sessions
from aiagent.frontends.tui.checkpoint import CheckpointTracker
from aiagent.frontends.tui.commands import build_commands
from aiagent.frontends.tui.firstframe import banner_lines, styled_banner, where
from aiagent.frontends.tui.frontends import make_input
from aiagent.frontends.tui.history import show_history
from aiagent.frontends.tui.images import PastedImages
from aiagent.frontends.tui.lognotices import LogNotices
from aiagent.frontends.tui.mentions import attach_mentions
from aiagent.frontends.tui.running import run_turn
from aiagent.frontends.tui.screen import Screen
from aiagent.frontends.tui.skill_approval import SkillApprovals
from aiagent.frontends.tui.state import ContextMeter, NextMessage, ReadLoop, ToolOutput
from aiagent.frontends.tui.status import Status, status_line
from aiagent.frontends.tui.terminal import TermInfo
from aiagent.frontends.tui.trust import confirm_trust
from aiagent.infra.config.settings import ConfigError

if TYPE_CHECKING:
    from aiagent.agent.core.loop import Agent
    from aiagent.contracts.providers import Provider
    from aiagent.frontends.tui.firstframe import FirstFrame
    from aiagent.frontends.tui.prepare import Parts
    from aiagent.infra.config.settings import Settings

EXIT_CONFIG = 2


class InteractiveApp:
    def __init__(self, options: dict[str, Any], cwd: Path, env: dict[str, str], term: TermInfo,
                 out: Any = None, frame: FirstFrame | None = None) -> None:

        self.options, self.cwd, self.env, self.term = options, cwd, env, term
        self.screen = Screen(term, out or sys.stdout)
        self.frame = frame  # the first screen, already painted (see firstframe.py)
        self.parts: Parts | None = None
        self.fatal: str | None = None
        self.provider_name = ""
        self.next_message = NextMessage()
        self.reading = ReadLoop()
        self.tool_output = ToolOutput()
        self.meter = ContextMeter()
        self.checkpoint = CheckpointTracker(self.say)
        self.commands = build_commands(self)
        self.skill_approvals = SkillApprovals(self.screen)
        self.log_notices = LogNotices(self.screen)  # logged warnings: notice lines
        self.input: Any = None
        self.pasted_images = PastedImages([])  # images pasted into the prompt being written
        self._ready: asyncio.Task[None] | None = None
        self._mcp_warm: asyncio.Future[None] | None = None

    # ---- the parts -------------------------------------------------------------------

    @property
    def agent(self) -> Agent | None:
        return self.parts.agent if self.parts else None

    @property
    def settings(self) -> Settings | None:
        return self.parts.settings if self.parts else None

    @property
    def workspace(self) -> Path:
        return self.parts.settings.workspace if self.parts else self.cwd.resolve()

    async def _prepare_after(self, started: asyncio.Future[None]) -> None:
        """Build the agent once the input line is on screen, so typing can start first."""
        await started
        await self._prepare()

    async def _prepare(self) -> None:

        try:
            settings = await asyncio.to_thread(prepare.load_settings, self.cwd, self.options,
                                               self.env)
            await asyncio.to_thread(prepare.warm_imports)
            self.parts = prepare.build_parts(settings, self.options, self.env)
        except Exception as exc:  # noqa: BLE001 - ConfigError, StoreError: one line, exit 2
            self.fatal = str(exc) if isinstance(exc, ConfigError) else f"{type(exc).__name__}: {exc}"
            if self.input is not None:
                self.input.stop()
            return
        if self.parts.app is not None:
            self.provider_name = self.parts.app.choice_or_named().name
        if self.agent is not None:
            from aiagent.contracts.hooks import Hooks
            from aiagent.frontends.tui.skill_approval import connect

            self.agent.add_hooks(Hooks(on_before_tool_call=[self.checkpoint.gate]), first=True)
            connect(getattr(self.agent, "skills", None), self.skill_approvals)
            from aiagent.frontends.tui.mcp_prompts import warm

            self._mcp_warm = warm(self)  # MCP prompts are listed while the user types
        for problem in self.parts.problems:
            self.say(render.notice(f"! {problem}", "yellow"))
        if self.parts.missing_key:  # the first run, most likely: say how to go on
            self.say(render.notice(""))
            self.say(render.first_run(self.parts.app, self.term))
        if self.input is not None:
            self.input.refresh()

    async def rebuild(self, options: dict[str, Any]) -> None:
        """Build everything again with some options changed (e.g. another provider)."""
        if self.parts is not None:
            self.parts.link.close()
        self.options = {**self.options, **options}
        self.parts = None
        await self._prepare()

    async def ready(self) -> bool:
        if self._ready is not None:
            await self._ready
        return self.parts is not None

    # ---- main loop -------------------------------------------------------------------

    async def main(self) -> int:
        with self.log_notices.installed():  # not on stderr, across the spinner
            return await self._main()

    async def _main(self) -> int:

        self.input = make_input(self)
        self.screen.use_line(self.input)
        if self.frame is None:
            self._banner()

        # an untrusted folder with code or wider settings: ask
        if await confirm_trust(self.screen, self.frame, self.cwd, self.options, self.env):
            self.options = {**self.options, "trust": True}  # for this session only
        started = asyncio.get_running_loop().create_future()
        self._ready = asyncio.ensure_future(self._prepare_after(started))
        resuming = bool(self.options.get("continue_session") or self.options.get("resume"))
        if resuming or not self.term.tty:
            started.set_result(None)  # the history is shown before the first prompt
        else:
            self.input.on_first_render(lambda: None if started.done() else started.set_result(None))
        if resuming:
            await self._open_previous()
        elif not self.term.tty:
            await self.ready()
        while not self.reading.quit and self.fatal is None:
            typed, queued = self.reading.take_typed()
            if queued:
                self.say(render.user_echo(typed))
            text = typed if queued else await self.input.read(typed)
            if text is None:
                break
            try:
                await self.handle(text)
            except Exception as exc:  # noqa: BLE001 - a bug in one command must not end the session
                self.say(render.notice(f"✗ internal error: {type(exc).__name__}: {exc}", "red"))
        return await self._shutdown()

    async def handle(self, text: str) -> None:
        stripped = text.strip()
        if not stripped:
            return
        if stripped.startswith("/") and await self.commands.run(stripped):
            return
        if stripped.startswith("!"):
            from aiagent.frontends.tui.shell import run_user_shell

            await run_user_shell(self, stripped[1:].strip())
            return
        await self.send(text)

    async def send(self, text: str) -> None:

        if not await self.ready() or self.agent is None:
            self.say(render.notice("✗ cannot send: " + "; ".join(
                self.parts.problems if self.parts else [self.fatal or "not ready"]), "red"))
            return
        from aiagent.frontends.tui.images import images_to_send

        taken = images_to_send(self, text, line_mode=not hasattr(self.input, "line"))
        if taken is None:
            return
        text, images = taken
        prompt, attached = attach_mentions(text, self.workspace)
        for item in attached:
            extra = f", {item.note}" if item.note else ""
            self.say(render.notice(f"  {render.ELBOW}  attached {item.path} ({item.lines} lines"
                                   f"{extra})"))
        prompt = self.next_message.attach_to(prompt)

        await run_turn(self, prompt, images)

    async def _open_previous(self) -> None:
        """``--continue`` / ``--resume``: show the history of the session that was opened."""

        if not await self.ready() or self.agent is None or self.parts is None:
            return
        if self.options.get("resume") == "?":
            await sessions(self, "")
            return
        current = self.parts.link.current
        if current is not None and current.resumed:
            show_history(self.screen, self.parts.link.info, self.agent.conversation.messages)

    def switch_session(self, request: Any) -> None:
        """Continue in another stored session (new, resumed or forked)."""
        assert self.parts is not None and self.agent is not None
        self.parts.link.open(request)
        self.parts.link.attach(self.agent, self.parts.policy)
        self.meter.set(0)

    def use_provider(self, name: str, provider: Provider, model: str) -> None:
        """Go on with another provider (``/provider NAME``)."""
        assert self.agent is not None
        self.provider_name = name
        self.agent.use_provider(provider, model=model)

    async def _shutdown(self) -> int:
        if self._ready is not None and not self._ready.done():
            self._ready.cancel()
        if self.fatal:
            sys.stderr.write(f"aiagent: error: {self.fatal}\n")
            return EXIT_CONFIG
        if self.agent is not None:
            with contextlib.suppress(Exception):
                from aiagent.agent.tools.shell.runtime import shutdown

                await shutdown(self.agent.tool_state)
            with contextlib.suppress(Exception):
                await self.agent.aclose()
        if self.parts is not None:
            with contextlib.suppress(Exception):
                self.parts.link.close()
        return 0

    # ---- output ----------------------------------------------------------------------

    def say(self, renderable: Any) -> None:
        """Print above the input line (or straight out when no input is active)."""
        self.screen.say(renderable)

    def _banner(self) -> None:
        """Name, folder, help and keys, written directly (rich is not loaded yet), wrapped
        between parts to the width."""

        folder = where(str(self.cwd.resolve()), self.env.get("HOME") or str(Path.home()))
        lines = banner_lines(__version__, folder, self.term.width, self.term.tty)
        self.screen.write(styled_banner(lines, self.term.color))

    # ---- status ----------------------------------------------------------------------

    def status(self) -> Status:
        agent, parts = self.agent, self.parts
        if parts is None:
            return Status(model="starting…" if self.fatal is None else "error")
        if agent is None:  # built, but without an agent: say why instead of "starting…"
            named = parts.app.choice_or_named() if parts.app is not None else None
            return Status(model=named.model if named else "no model",
                          provider=named.name if named else "",
                          note="no API key" if parts.missing_key else "not ready (see above)")
        return Status(
            model=agent.config.model,
            provider=self.provider_name,
            mode=str(getattr(parts.policy, "mode", "")),
            context_tokens=self.meter.tokens,
            context_budget=int(getattr(agent.context, "budget", 0)
                               or parts.settings.agent.context_budget),
            total=agent.usage,
            elsewhere=tuple(agent.usage_elsewhere),
            jobs=running_jobs(agent.tool_state),
            session_id=parts.link.id,
            answered=any(m.role == "assistant" for m in agent.conversation.messages),
        )

    def status_text(self, width: int) -> str:
        return status_line(self.status(), width)

    def cycle_mode(self) -> str:
        policy = self.parts.policy if self.parts else None
        modes = ("prompt", "auto-edit", "full-auto", "read-only")
        if policy is None or not hasattr(policy, "mode"):
            return "unavailable"
        current = policy.mode if policy.mode in modes else "prompt"
        policy.mode = modes[(modes.index(current) + 1) % len(modes)]
        return str(policy.mode)

    def expand_last(self) -> None:
        screen = self.screen
        if not self.tool_output.blocks:
            screen.print(render.notice("no tool output to show"))
            return
        for block in self.tool_output.blocks:
            screen.print(render.tool_header(block, screen.width()))
            screen.print(render.notice(block.full_text() or "(no output)", ""))


def running_jobs(state: dict[str, Any]) -> int:
    """Background jobs still running, found in the tools' shared state."""
    for value in state.values():
        jobs = getattr(getattr(value, "_jobs", None), "jobs", None)
        if isinstance(jobs, dict):
            return sum(1 for job in jobs.values() if getattr(job, "outcome", 1) is None)
    return 0

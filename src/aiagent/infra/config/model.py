"""The typed settings: one frozen dataclass per table of ``config.toml``.

``schema.json`` stays the source of every key's type, limits and default (it validates each
file with a line number and fills the defaults layer); these classes are the typed view a
part of the program receives once the layers are merged. A test keeps the two in step: every
key of the schema is a field here and every field a key there.

Tables whose keys are the user's own names (MCP servers, web engines, language servers,
context windows, skill presets) stay mappings of validated values.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")

Table = Mapping[str, Any]


def _empty() -> Mapping[str, Any]:
    return {}


@dataclass(frozen=True, slots=True)
class ProviderEntry:
    """``[provider.NAME]``: one provider's endpoint and defaults."""

    model: str = ""
    base_url: str = ""
    api_key_source: str = "env"
    api_key: str | None = field(default=None, repr=False)
    max_tokens: int = 8192
    tool_choice: str = "auto"
    stream: bool = True
    vision: bool | None = None
    temperature: float | None = None
    headers: Mapping[str, str] = field(default_factory=_empty)


@dataclass(frozen=True, slots=True)
class ProviderSettings:
    """``[provider]``: which provider (``default``), which model, and each provider's entry."""

    default: str = "anthropic"
    model: str | None = None
    anthropic: ProviderEntry = ProviderEntry()
    openai: ProviderEntry = ProviderEntry()
    ollama: ProviderEntry = ProviderEntry()

    def entry(self, name: str) -> ProviderEntry:
        entry: ProviderEntry = getattr(self, name)
        return entry


@dataclass(frozen=True, slots=True)
class NetworkSettings:
    connect_timeout: float = 10.0
    idle_timeout: float = 120.0
    max_retries: int = 4
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    max_retry_wait: float = 120.0
    max_line_bytes: int = 8 * 1024 * 1024
    max_body_bytes: int = 256 * 1024 * 1024
    max_output_chars: int = 1_000_000
    turn_timeout: float = 1800.0
    probe_timeout: float = 2.0


@dataclass(frozen=True, slots=True)
class AgentSettings:
    max_turns: int = 50
    timeout: float = 0.0  # seconds; 0 = none
    approval_mode: str = "prompt"
    context_budget: int = 100_000
    tool_profile: str = "default"
    tool_protocol: str = "native"
    tools: list[str] | None = None
    system_prompt: str | None = None
    max_subagents: int = 3  # task subagents at once; 0 = no task tool
    subagent_depth: int = 1  # 1 = a subagent cannot start another
    max_cost: float = 0.0  # dollars for a run; 0 = none
    max_tokens: int = 0  # tokens for a run; 0 = none


@dataclass(frozen=True, slots=True)
class ContextSettings:
    compact_at: float = 0.8
    target: float = 0.5
    keep_recent: float = 0.25
    spill_share: float = 0.25
    summary_tokens: int = 2048
    protect_last: int = 4
    windows: Mapping[str, int] = field(default_factory=_empty)


@dataclass(frozen=True, slots=True)
class PermissionSettings:
    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    backend: str = "auto"
    always: bool = False
    network: bool = False
    writable: list[str] = field(default_factory=list)
    protected: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SearchSettings:
    engine: str = "rg"


@dataclass(frozen=True, slots=True)
class RepoMapSettings:
    mode: str = "auto"
    tokens: int = 1024
    min_files: int = 50
    max_files: int = 20_000
    max_seconds: float = 2.0


@dataclass(frozen=True, slots=True)
class LspSettings:
    enabled: bool = True
    diagnostics_after_edit: bool = True
    start_timeout: float = 10.0
    request_timeout: float = 10.0
    diagnostics_wait: float = 2.0
    max_diagnostics: int = 20
    servers: Mapping[str, Any] = field(default_factory=_empty)


@dataclass(frozen=True, slots=True)
class ShellSettings:
    timeout: float = 300.0
    inactivity_timeout: float = 120.0
    background_after: float = 60.0
    kill_grace: float = 1.0
    max_output_tokens: int = 10_000
    memory_bytes: int = 262_144
    log_max_bytes: int = 64 * 1024 * 1024
    log_dir: str = ""
    result: str = "codex"
    login: bool = True
    snapshot: bool = True
    snapshot_timeout: float = 10.0
    shell: str = ""
    job_start_wait: float = 1.0
    keep_jobs: bool = False
    max_sessions: int = 64
    env: Mapping[str, str] = field(default_factory=_empty)
    keep_env: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class TagSettings:
    max_rounds: int = 10
    max_result_chars: int = 2000


@dataclass(frozen=True, slots=True)
class WebToolSettings:
    allow_private: bool = False
    allow_networks: list[str] = field(default_factory=list)
    timeout: float = 20.0
    max_bytes: int = 5 * 1024 * 1024
    max_redirects: int = 5
    max_chars: int = 100_000
    search_url: str = ""
    search_headers: Mapping[str, str] = field(default_factory=_empty)


@dataclass(frozen=True, slots=True)
class ToolSettings:
    allow_outside_workspace: bool = False
    search: SearchSettings = SearchSettings()
    repo_map: RepoMapSettings = RepoMapSettings()
    lsp: LspSettings = LspSettings()
    shell: ShellSettings = ShellSettings()
    tags: TagSettings = TagSettings()
    web: WebToolSettings = WebToolSettings()


@dataclass(frozen=True, slots=True)
class McpSettings:
    enabled: bool = True
    servers: Mapping[str, Any] = field(default_factory=_empty)
    project_file: bool = True
    user_files: list[str] = field(default_factory=list)
    startup_timeout: float = 30.0
    call_timeout: float = 120.0
    max_result_chars: int = 100_000
    max_message_bytes: int = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class SecuritySettings:
    fail_on: str | None = None
    custom_rules: str | None = None
    enable_llm_analysis: bool | None = None
    max_llm_calls: int | None = None
    llm_budget_tokens: int | None = None
    llm_analyzers: list[str] | None = None
    osv_online: bool | None = None
    osv_url: str | None = None
    osv_cache_hours: float | None = None
    trust_workspace: bool = False


@dataclass(frozen=True, slots=True)
class SkillSettings:
    enabled: bool | list[str] | str | None = None
    disabled: list[str] | str | None = None
    preset: str | None = None
    presets: Mapping[str, Any] = field(default_factory=_empty)
    explicit: list[str] | str | None = None
    approve: list[str] | str | None = None
    auto_approve: list[str] | str | None = None
    config: Mapping[str, Any] = field(default_factory=_empty)
    user_skills_dir: str | None = None
    index_budget: int | None = None
    process_sandbox: str | None = None
    max_llm_calls_per_skill: int | None = None
    max_shell_exec_per_skill: int | None = None
    max_net_fetch_per_skill: int | None = None
    skill_shell_timeout: float | str | None = None
    net_fetch_timeout: float | str | None = None
    starlark_timeout: float | str | None = None
    starlark_memory_mb: int | None = None
    call_timeout: float | str | None = None
    registry_url: str | None = None
    registry_ttl: float | str | None = None

    @property
    def on(self) -> bool:
        """Skills are on unless ``enabled = false``."""
        return self.enabled is not False


@dataclass(frozen=True, slots=True)
class AcpSettings:
    terminal: str = "auto"


@dataclass(frozen=True, slots=True)
class WebSettings:
    engines: Mapping[str, Any] = field(default_factory=_empty)


@dataclass(frozen=True, slots=True)
class WikiSettings:
    hook_timeout: float = 10.0  # seconds an on_before_wiki_section hook may run
    check_min: float = 80.0  # the minimum score of `aiagent wiki --check`
    mermaid_js: str = ""  # a local mermaid.min.js for the mkdocs and Hugo sites ("": none)


@dataclass(frozen=True, slots=True)
class HookSettings:
    """``[hooks]``: user hooks (docs/hooks.md). The event lists are read per layer by
    :mod:`aiagent.agent.hooks.config` (a project's hooks add to the user's); the merged
    values here serve the switches and limits."""

    read_claude_settings: bool = False
    allow_skips_prompt: bool = False
    timeout: float = 60.0
    max_output_bytes: int = 65_536
    max_stop_continuations: int = 3  # a Stop hook's "block" makes the model go on, at most so often
    PreToolUse: list[Mapping[str, Any]] = field(default_factory=list)  # noqa: N815 - the event's name
    PostToolUse: list[Mapping[str, Any]] = field(default_factory=list)  # noqa: N815
    UserPromptSubmit: list[Mapping[str, Any]] = field(default_factory=list)  # noqa: N815
    Stop: list[Mapping[str, Any]] = field(default_factory=list)  # noqa: N815
    SubagentStop: list[Mapping[str, Any]] = field(default_factory=list)  # noqa: N815
    SessionStart: list[Mapping[str, Any]] = field(default_factory=list)  # noqa: N815


@dataclass(frozen=True, slots=True)
class SettingsModel:
    """Every table of ``config.toml``, typed."""

    provider: ProviderSettings = ProviderSettings()
    network: NetworkSettings = NetworkSettings()
    agent: AgentSettings = AgentSettings()
    context: ContextSettings = ContextSettings()
    permissions: PermissionSettings = PermissionSettings()
    sandbox: SandboxSettings = SandboxSettings()
    tools: ToolSettings = ToolSettings()
    mcp: McpSettings = McpSettings()
    security: SecuritySettings = SecuritySettings()
    skills: SkillSettings = SkillSettings()
    acp: AcpSettings = AcpSettings()
    web: WebSettings = WebSettings()
    wiki: WikiSettings = WikiSettings()
    hooks: HookSettings = HookSettings()


def build(cls: type[T], table: Mapping[str, Any]) -> T:
    """``cls`` from a validated table; absent keys keep the class's defaults."""
    hints = _hints(cls)
    values: dict[str, Any] = {}
    for item in dataclasses.fields(cls):
        if item.name not in table or table[item.name] is None:
            continue
        value = table[item.name]
        kind = hints[item.name]
        if dataclasses.is_dataclass(kind) and isinstance(value, Mapping):
            value = build(kind, value)  # type: ignore[arg-type]
        elif isinstance(value, Mapping):
            value = dict(value)
        elif isinstance(value, list):
            value = list(value)
        values[item.name] = value
    return cls(**values)


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def as_table(section: Any) -> dict[str, Any]:
    """A typed section back as a plain table (for parts that hand it on as data)."""
    return dataclasses.asdict(section)

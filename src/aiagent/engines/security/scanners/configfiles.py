"""Config scanner: dispatches a file to the checks for its kind."""

from __future__ import annotations

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.discovery import SourceFile
from aiagent.engines.security.finding import Finding
from aiagent.engines.security.rulepack import packs_version
from aiagent.engines.security.scanners.config_actions import scan_gitlab, scan_workflow
from aiagent.engines.security.scanners.config_docker import scan_dockerfile
from aiagent.engines.security.scanners.config_k8s import is_compose, scan_compose, scan_k8s
from aiagent.engines.security.scanners.config_terraform import scan_terraform

KINDS = {"dockerfile", "github-actions", "gitlab-ci", "yaml", "terraform"}


class ConfigScanner:
    name = "config"

    def __init__(self, config: SecurityConfig | None = None) -> None:
        self.version = packs_version(["config.yaml"]) + "-1"

    def applies_to(self, file: SourceFile) -> bool:
        return file.language in KINDS

    def scan_file(self, file: SourceFile, data: bytes) -> list[Finding]:
        text = data.decode("utf-8", "replace")
        kind = file.language
        if kind == "dockerfile":
            return scan_dockerfile(file.rel, text)
        if kind == "github-actions":
            return scan_workflow(file.rel, text)
        if kind == "gitlab-ci":
            return scan_gitlab(file.rel, text)
        if kind == "terraform":
            return scan_terraform(file.rel, text)
        if is_compose(file.rel):
            return scan_compose(file.rel, text)
        if "apiVersion" in text and "kind" in text:
            return scan_k8s(file.rel, text)
        return []

"""Kubernetes manifests and docker-compose files."""

from __future__ import annotations

from typing import Any

from aiagent.engines.security.finding import Finding
from aiagent.engines.security.scanners import yamlnodes as yn
from aiagent.engines.security.scanners.config_meta import make

DANGEROUS_CAPS = {"SYS_ADMIN", "ALL", "NET_ADMIN", "SYS_PTRACE", "SYS_MODULE", "DAC_READ_SEARCH"}


def is_compose(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return name.startswith(("docker-compose", "compose")) and name.endswith((".yml", ".yaml"))


def scan_k8s(rel: str, text: str) -> list[Finding]:
    out: list[Finding] = []
    for doc in yn.compose_all(text):
        if yn.get(doc, "apiVersion") is None or yn.get(doc, "kind") is None:
            continue
        for path, node in yn.walk(doc):
            out.extend(_k8s_node(rel, path[-1] if path else "", node))
    return out


def _k8s_node(rel: str, key: str, node: Any) -> list[Finding]:
    value = yn.scalar(node)
    at = yn.line(node)
    if key == "privileged" and value == "true":
        return [make("K8S-PRIVILEGED-001", rel, at, "privileged: true")]
    if key in {"hostNetwork", "hostPID", "hostIPC"} and value == "true":
        return [make("K8S-HOST-NAMESPACE-001", rel, at, f"{key}: true")]
    if key == "allowPrivilegeEscalation" and value == "true":
        return [make("K8S-PRIV-ESCALATION-001", rel, at, "allowPrivilegeEscalation: true")]
    if key == "runAsUser" and value == "0":
        return [make("K8S-RUN-AS-ROOT-001", rel, at, "runAsUser: 0")]
    if key == "hostPath" and yn.get(node, "path") is not None:
        return [make("K8S-HOSTPATH-001", rel, at, f"hostPath: {yn.scalar(yn.get(node, 'path'))}")]
    if key == "add":
        caps = [yn.scalar(n) or "" for n in yn.seq(node)]
        bad = [c for c in caps if c.upper().removeprefix("CAP_") in DANGEROUS_CAPS]
        if bad:
            return [make("K8S-CAPABILITIES-001", rel, at, f"add: {bad}")]
    return []


def scan_compose(rel: str, text: str) -> list[Finding]:
    out: list[Finding] = []
    for doc in yn.compose_all(text):
        for _, service in yn.items(yn.get(doc, "services")):
            out.extend(_service(rel, service))
    return out


def _service(rel: str, service: Any) -> list[Finding]:
    out = []
    priv = yn.get(service, "privileged")
    if yn.scalar(priv) == "true":
        out.append(make("COMPOSE-PRIVILEGED-001", rel, yn.line(priv), "privileged: true"))
    net = yn.get(service, "network_mode")
    if yn.scalar(net) == "host":
        out.append(make("COMPOSE-PRIVILEGED-001", rel, yn.line(net), "network_mode: host"))
    for vol in yn.seq(yn.get(service, "volumes")):
        text = yn.scalar(vol) or yn.scalar(yn.get(vol, "source")) or ""
        if "docker.sock" in text:
            out.append(make("COMPOSE-DOCKER-SOCKET-001", rel, yn.line(vol), f"- {text}"))
    return out

"""Terraform checks by block context (no HCL parser): public buckets, open ingress,
unencrypted storage, public databases."""

from __future__ import annotations

import re

from aiagent.engines.security.finding import Finding
from aiagent.engines.security.scanners.config_meta import make

ATTR = re.compile(r'^\s*([A-Za-z_][\w-]*)\s*=\s*(.+?)\s*$')
BLOCK = re.compile(r'^\s*([A-Za-z_][\w-]*)(?:\s+"[^"]*")*\s*\{\s*$')
OPEN_CIDR = re.compile(r'"0\.0\.0\.0/0"|"::/0"')


def scan_terraform(rel: str, text: str) -> list[Finding]:
    out: list[Finding] = []
    stack: list[str] = []
    for no, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0]
        block = BLOCK.match(code)
        if block:
            stack.append(block.group(1))
            continue
        attr = ATTR.match(code)
        if attr:
            out.extend(_attr(rel, no, stack, attr.group(1), attr.group(2), line))
        for _ in range(code.count("}") - code.count("{")):
            if stack:
                stack.pop()
    return out


def _attr(rel: str, no: int, stack: list[str], name: str, value: str, line: str) -> list[Finding]:
    value = value.strip()
    if name == "acl" and value in {'"public-read"', '"public-read-write"'}:
        return [make("TF-PUBLIC-BUCKET-001", rel, no, line)]
    if name in {"cidr_blocks", "ipv6_cidr_blocks", "cidr_ipv4", "cidr_ipv6"} and OPEN_CIDR.search(value):
        in_ingress = "ingress" in stack or any("ingress" in s for s in stack)
        if in_ingress or name in {"cidr_ipv4", "cidr_ipv6"}:
            return [make("TF-OPEN-INGRESS-001", rel, no, line)]
    if name in {"encrypted", "storage_encrypted", "enable_encryption"} and value == "false":
        return [make("TF-UNENCRYPTED-001", rel, no, line)]
    if name == "publicly_accessible" and value == "true":
        return [make("TF-PUBLIC-DB-001", rel, no, line)]
    return []

"""Config scanner checks, each with a bad case and a safe twin."""

from __future__ import annotations

import pytest
from sec_helpers import source

from aiagent.engines.security.scanners.configfiles import ConfigScanner

CASES = [
    ("Dockerfile", "FROM python:3.12\nRUN pip install x\n", "FROM python:3.12\nUSER app\n", "DOCKER-ROOT-001"),
    ("Dockerfile", "FROM ubuntu\nUSER app\n", "FROM ubuntu:24.04\nUSER app\n", "DOCKER-LATEST-001"),
    ("Dockerfile", "FROM a:1\nENV DB_PASSWORD=hunter22\nUSER app\n",
     "FROM a:1\nENV DB_PASSWORD=$DB_PASSWORD\nUSER app\n", "DOCKER-SECRET-001"),
    ("Dockerfile", "FROM a:1\nADD https://x.io/t.tgz /t\nUSER app\n", "FROM a:1\nADD t.tgz /t\nUSER app\n",
     "DOCKER-ADD-URL-001"),
    ("Dockerfile", "FROM a:1\nRUN curl -fsSL https://x.io/i.sh \\\n  | bash\nUSER app\n",
     "FROM a:1\nRUN curl -fsSLo i.sh https://x.io/i.sh && sha256sum -c i.sha\nUSER app\n",
     "DOCKER-CURL-PIPE-001"),
    (".github/workflows/ci.yml",
     "on: issues\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: |\n          echo hi\n          echo \"${{ github.event.issue.title }}\"\n",
     "on: issues\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: echo \"$TITLE\"\n        env:\n          TITLE: ${{ github.event.issue.title }}\n",
     "GHA-INJECTION-001"),
    (".github/workflows/ci.yml",
     "on: pull_request_target\njobs:\n  a:\n    steps:\n      - uses: actions/checkout@0123456789abcdef0123456789abcdef01234567\n        with:\n          ref: ${{ github.event.pull_request.head.sha }}\n",
     "on: pull_request\njobs:\n  a:\n    steps:\n      - uses: actions/checkout@0123456789abcdef0123456789abcdef01234567\n        with:\n          ref: ${{ github.event.pull_request.head.sha }}\n",
     "GHA-PRT-CHECKOUT-001"),
    (".github/workflows/ci.yml", "on: push\njobs:\n  a:\n    steps:\n      - uses: org/act@v1\n",
     "on: push\njobs:\n  a:\n    steps:\n      - uses: org/act@0123456789abcdef0123456789abcdef01234567\n      - uses: ./local\n",
     "GHA-UNPINNED-001"),
    (".github/workflows/ci.yml", "on: push\npermissions: write-all\njobs: {}\n",
     "on: push\npermissions:\n  contents: read\njobs: {}\n", "GHA-PERMISSIONS-001"),
    (".github/workflows/ci.yml", "on: push\njobs: {}\n", "on: push\npermissions: {}\njobs: {}\n",
     "GHA-PERMISSIONS-002"),
    (".gitlab-ci.yml", "t:\n  script:\n    - echo $CI_MERGE_REQUEST_TITLE\n",
     "t:\n  script:\n    - echo \"$CI_MERGE_REQUEST_TITLE\"\n", "GITLAB-INJECTION-001"),
    ("k8s/pod.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - securityContext:\n        privileged: true\n",
     "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - securityContext:\n        privileged: false\n",
     "K8S-PRIVILEGED-001"),
    ("k8s/pod.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  hostPID: true\n",
     "apiVersion: v1\nkind: Pod\nspec:\n  hostPID: false\n", "K8S-HOST-NAMESPACE-001"),
    ("k8s/pod.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  securityContext:\n    runAsUser: 0\n",
     "apiVersion: v1\nkind: Pod\nspec:\n  securityContext:\n    runAsUser: 1000\n", "K8S-RUN-AS-ROOT-001"),
    ("k8s/pod.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  c:\n    capabilities:\n      add: [SYS_ADMIN]\n",
     "apiVersion: v1\nkind: Pod\nspec:\n  c:\n    capabilities:\n      add: [NET_BIND_SERVICE]\n",
     "K8S-CAPABILITIES-001"),
    ("k8s/pod.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  volumes:\n    - hostPath:\n        path: /etc\n",
     "apiVersion: v1\nkind: Pod\nspec:\n  volumes:\n    - emptyDir: {}\n", "K8S-HOSTPATH-001"),
    ("k8s/pod.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  c:\n    allowPrivilegeEscalation: true\n",
     "apiVersion: v1\nkind: Pod\nspec:\n  c:\n    allowPrivilegeEscalation: false\n", "K8S-PRIV-ESCALATION-001"),
    ("docker-compose.yml", "services:\n  a:\n    privileged: true\n", "services:\n  a:\n    image: x:1\n",
     "COMPOSE-PRIVILEGED-001"),
    ("compose.yaml", "services:\n  a:\n    volumes:\n      - /var/run/docker.sock:/var/run/docker.sock\n",
     "services:\n  a:\n    volumes:\n      - ./data:/data\n", "COMPOSE-DOCKER-SOCKET-001"),
    ("main.tf", 'resource "aws_s3_bucket_acl" "b" {\n  acl = "public-read"\n}\n',
     'resource "aws_s3_bucket_acl" "b" {\n  acl = "private"\n}\n', "TF-PUBLIC-BUCKET-001"),
    ("main.tf", 'resource "aws_security_group" "s" {\n  ingress {\n    cidr_blocks = ["0.0.0.0/0"]\n  }\n}\n',
     'resource "aws_security_group" "s" {\n  egress {\n    cidr_blocks = ["0.0.0.0/0"]\n  }\n  ingress {\n    cidr_blocks = ["10.0.0.0/8"]\n  }\n}\n',
     "TF-OPEN-INGRESS-001"),
    ("main.tf", 'resource "aws_ebs_volume" "v" {\n  encrypted = false\n}\n',
     'resource "aws_ebs_volume" "v" {\n  encrypted = true\n}\n', "TF-UNENCRYPTED-001"),
    ("main.tf", 'resource "aws_db_instance" "d" {\n  publicly_accessible = true\n}\n',
     'resource "aws_db_instance" "d" {\n  publicly_accessible = false\n}\n', "TF-PUBLIC-DB-001"),
]


def ids(rel: str, text: str) -> list[str]:
    return [f.id for f in ConfigScanner().scan_file(source(rel), text.encode())]


@pytest.mark.parametrize(("rel", "bad", "safe", "rule_id"), CASES, ids=[c[3] for c in CASES])
def test_bad_and_safe(rel: str, bad: str, safe: str, rule_id: str) -> None:
    assert rule_id in ids(rel, bad)
    assert rule_id not in ids(rel, safe)


def test_every_config_rule_has_a_case() -> None:
    from aiagent.engines.security.scanners.config_meta import config_rules

    assert set(config_rules()) == {c[3] for c in CASES}


def test_injection_line_inside_block_scalar() -> None:
    rel, bad, _, _ = CASES[5]
    (finding,) = [f for f in ConfigScanner().scan_file(source(rel), bad.encode())
                  if f.id == "GHA-INJECTION-001"]
    assert finding.location.start_line == 8


def test_broken_yaml_is_not_a_crash() -> None:
    assert ids("k8s/bad.yaml", "apiVersion: v1\nkind: [unclosed\n") == []

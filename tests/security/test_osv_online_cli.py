"""`aiagent security-audit --online` as a real subprocess against a fake OSV API, and the
`[security] osv_*` config keys."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sec_helpers import FIXTURES

from aiagent.engines.security.defaults import parse_defaults
from aiagent.engines.security.deps.osv_settings import (
    DEFAULT_OSV_URL,
    osv_cache_dir,
    resolve_online,
)
from aiagent.engines.security.errors import SecurityConfigError

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "vulnerable-app"
AIAGENT = Path(sys.executable).parent / "aiagent"
ONLINE_ONLY = {"GHSA-h75v-3vvj-5mfj", "GHSA-9wx4-h78v-vm56", "GHSA-qw6h-vgh9-j6wx"}


def _fake() -> Any:
    spec = importlib.util.spec_from_file_location("fake_osv_cli", FIXTURES / "osv-online" / "fake_osv.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["fake_osv_cli"] = module
    spec.loader.exec_module(module)
    return module


fake_osv = _fake()


def test_config_keys() -> None:
    plain = parse_defaults({}, "config.toml")
    assert (plain.osv_online, plain.osv_url, plain.osv_cache_hours) == (False, DEFAULT_OSV_URL, 24.0)
    set_ = parse_defaults({"osv_online": True, "osv_url": "http://127.0.0.1:9/", "osv_cache_hours": 2},
                          "config.toml")
    assert (set_.osv_online, set_.osv_url, set_.osv_cache_hours) == (True, "http://127.0.0.1:9/", 2.0)


@pytest.mark.parametrize(("key", "value"), [
    ("osv_online", "yes"), ("osv_url", "api.osv.dev"), ("osv_url", 3),
    ("osv_cache_hours", -1), ("osv_cache_hours", True), ("osv_cache_hours", "24"),
])
def test_bad_config_values_name_the_key(key: str, value: Any) -> None:
    with pytest.raises(SecurityConfigError, match=f"config.toml: security.{key}: "):
        parse_defaults({key: value}, "config.toml")


def test_flag_wins_over_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert resolve_online(None, False) is None
    assert resolve_online(False, True) is None
    on = resolve_online(True, False, "http://x", 1.5)
    assert on is not None and (on.url, on.cache_hours) == ("http://x", 1.5)
    assert resolve_online(None, True) is not None
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert osv_cache_dir() == tmp_path / "aiagent" / "osv"


def _env(tmp_path: Path, security: str) -> dict[str, str]:
    cfg = tmp_path / "cfg" / "aiagent"
    cfg.mkdir(parents=True, exist_ok=True)
    (cfg / "config.toml").write_text(f"[security]\n{security}\n")
    return {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "c"), "XDG_DATA_HOME": str(tmp_path / "d"),
            "XDG_CONFIG_HOME": str(tmp_path / "cfg")}


def _audit(env: dict[str, str], *args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    proc = subprocess.run([str(AIAGENT), "security-audit", str(EXAMPLE), "-o", "json", *args],
                          capture_output=True, text=True, env=env, timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    found = {f["id"] for f in json.loads(proc.stdout)["findings"] if f["scanner"] == "dependencies"}
    return proc, found


@pytest.mark.skipif(not AIAGENT.exists(), reason="console script not installed")
def test_real_cli_online_then_cached(tmp_path: Path) -> None:
    with fake_osv.FakeOsv(fake_osv.real_records()) as fake:
        env = _env(tmp_path, f'osv_url = "{fake.url}"')
        offline, offline_ids = _audit(env)
        assert fake.requests == [] and offline.returncode == 0
        online, online_ids = _audit(env, "--online")
        assert online.returncode == 0 and online.stderr == ""
        assert online_ids == offline_ids | ONLINE_ONLY
        asked = len(fake.requests)
        assert asked and fake.count("POST") == 1
        again, again_ids = _audit(env, "--online")
        assert len(fake.requests) == asked and again_ids == online_ids  # warm cache
    assert (tmp_path / "c" / "aiagent" / "osv" / "queries").is_dir()


@pytest.mark.skipif(not AIAGENT.exists(), reason="console script not installed")
def test_real_cli_with_the_server_down_warns_once(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    env = _env(tmp_path, f'osv_online = true\nosv_url = "{url}"')
    offline, offline_ids = _audit(env, "--offline")
    assert offline.stderr == ""
    down, down_ids = _audit(env)  # osv_online = true in config.toml
    assert down.returncode == offline.returncode and down_ids == offline_ids
    (line,) = down.stderr.splitlines()
    assert line.startswith("warning: OSV online lookup failed: cannot reach") and url in line

# ruff: noqa
"""A command-line tool in the style of popular Python CLIs."""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

log = logging.getLogger("deployctl")
CONFIG_NAMES = ("deployctl.yaml", ".deployctl.yaml")
GIT = shutil.which("git") or "git"


def find_config(start: Path) -> Path | None:
    for folder in [start, *start.parents]:
        for name in CONFIG_NAMES:
            candidate = folder / name
            if candidate.is_file():
                return candidate
    return None


def load_config(path: Path) -> dict:
    with path.open(encoding="utf-8") as fh:
        return yaml.safe_load(fh) or {}


def git(*args: str, cwd: Path | None = None) -> str:
    proc = subprocess.run([GIT, *args], cwd=cwd, capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def current_branch(repo: Path) -> str:
    return git("rev-parse", "--abbrev-ref", "HEAD", cwd=repo)


def build(repo: Path, target: str) -> Path:
    out = Path(tempfile.mkdtemp(prefix="deployctl-"))
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(out)], cwd=repo, check=True)
    log.info("built %s into %s", target, out)
    return out


def run_hook(command: list[str], env: dict[str, str]) -> int:
    return subprocess.call(command, env={**os.environ, **env})


def upload(artifact: Path, bucket: str) -> None:
    dest = Path(bucket) / artifact.name
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(artifact, dest)


def clean(workdir: Path, keep: int = 3) -> list[Path]:
    builds = sorted(workdir.glob("deployctl-*"), key=lambda p: p.stat().st_mtime)
    removed = builds[:-keep] if keep else builds
    for path in removed:
        shutil.rmtree(path, ignore_errors=True)
    return removed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deployctl")
    parser.add_argument("target")
    parser.add_argument("--repo", type=Path, default=Path.cwd())
    parser.add_argument("--bucket", default="/srv/artifacts")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    config_path = find_config(args.repo)
    config = load_config(config_path) if config_path else {}
    hooks = config.get("hooks", {})
    branch = current_branch(args.repo)
    if branch not in config.get("branches", ["main"]):
        log.error("refusing to deploy branch %s", branch)
        return 1
    artifact_dir = build(args.repo, args.target)
    if args.dry_run:
        print(f"would upload {artifact_dir} to {args.bucket}")
        return 0
    for hook in hooks.get("pre", []):
        if run_hook(hook, {"DEPLOY_TARGET": args.target}) != 0:
            return 1
    for artifact in artifact_dir.iterdir():
        upload(artifact, args.bucket)
    with open(os.path.join(args.bucket, "LATEST"), "w", encoding="utf-8") as fh:
        fh.write(args.target)
    return 0


if __name__ == "__main__":
    sys.exit(main())

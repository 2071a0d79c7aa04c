"""`aiagent security db import|update|info`: the local advisory database that is merged with
the OSV snapshot bundled with aiagent."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:
    from aiagent.engines.security.deps.osvdb import OsvDatabase

from aiagent.engines.security.deps.osv_export import (
    DEFAULT_EXPORT_URL,
    ExportUnavailable,
    update,
)
from aiagent.engines.security.deps.osvdb import BundledAdvisories, OsvDatabase, read_records
from aiagent.engines.security.deps.osvsnapshot import ECOSYSTEMS
from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.paths import default_osv_db
from aiagent.frontends.cli.errors import EXIT_USAGE

DB_HELP = "Database file (default: the user data folder)."


@click.group("security")
def security() -> None:
    """Security engine maintenance."""


@security.group("db")
def db() -> None:
    """The local OSV advisory database, merged with the bundled snapshot (used offline)."""


@db.command("import")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), help=DB_HELP)
def import_cmd(path: Path, db_path: Path | None) -> None:
    """Merge OSV records from an export zip, a folder of JSON/YAML files, or a JSON file.

    A record replaces a stored copy of the same id only if it is at least as new; withdrawn
    records are kept as tombstones that hide the id (the bundled copy too)."""

    database, target = _open(db_path)
    try:
        added = database.add(read_records(path))
        total = database.count()
    except _config_error() as exc:
        _fail(str(exc))
    finally:
        database.close()
    click.echo(f"imported {added} advisories into {target} ({total} in the database; "
               f"{_bundled_line()})")


@db.command("update")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), help=DB_HELP)
@click.option("--ecosystem", "ecosystems", multiple=True,
              help="Only these ecosystems (repeatable; default: every one aiagent reads).")
@click.option("--url", default=None, help="Base URL of the OSV export (a mirror).")
def update_cmd(db_path: Path | None, ecosystems: tuple[str, ...], url: str | None) -> None:
    """Download OSV's current exports (ECOSYSTEM/all.zip) and merge them in. Needs network."""

    database, target = _open(db_path)
    try:
        done = update(database, ecosystems or ECOSYSTEMS, url or DEFAULT_EXPORT_URL,
                      lambda eco: click.echo(f"downloading {eco} …", err=True))
        total = database.count()
    except ExportUnavailable as exc:
        _fail(f"security db update: {exc}; nothing changed, audits keep using "
              f"{_bundled_line()}")
    except _config_error() as exc:
        _fail(str(exc))
    finally:
        database.close()
    parts = ", ".join(f"{u.ecosystem} {u.records}" for u in done)
    click.echo(f"updated {target}: {parts} ({total} in the database; {_bundled_line()})")


@db.command("info")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), help=DB_HELP)
def info_cmd(db_path: Path | None) -> None:
    """Show what the audit will use: the bundled snapshot and the local database."""

    click.echo(_bundled_line())
    target = db_path or default_osv_db()
    if not target.is_file():
        click.echo(f"no local database at {target} (`aiagent security db import|update` makes one)")
        return
    database, _ = _open(target)
    try:
        click.echo(f"local database {target}: {database.count()} advisories")
    finally:
        database.close()


def _open(db_path: Path | None) -> tuple[OsvDatabase, Path]:

    target = db_path or default_osv_db()
    try:
        return OsvDatabase(target), target
    except _config_error() as exc:
        _fail(str(exc))


def _bundled_line() -> str:

    return f"bundled snapshot: {BundledAdvisories().describe()}"


def _config_error() -> type[Exception]:

    return SecurityConfigError


def _fail(message: str) -> NoReturn:
    click.echo(f"aiagent: error: {message}", err=True)
    sys.exit(EXIT_USAGE)

"""`aiagent security db import PATH`: load OSV exports into the local advisory index."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.group("security")
def security() -> None:
    """Security engine maintenance."""


@security.group("db")
def db() -> None:
    """The local OSV advisory database (used offline by security-audit)."""


@db.command("import")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Database file (default: the user data folder).")
def import_cmd(path: Path, db_path: Path | None) -> None:
    """Import OSV records from an export zip, a folder of JSON files, or a JSON file."""
    from aiagent.security.deps.osvdb import OsvDatabase, read_records
    from aiagent.security.errors import SecurityConfigError
    from aiagent.security.paths import default_osv_db

    target = db_path or default_osv_db()
    database = OsvDatabase(target)
    try:
        added = database.add(read_records(path))
        total = database.count()
    except SecurityConfigError as exc:
        click.echo(f"aiagent: error: {exc}", err=True)
        sys.exit(2)
    finally:
        database.close()
    click.echo(f"imported {added} advisories into {target} ({total} in total)")

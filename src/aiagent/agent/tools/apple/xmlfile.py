"""Reading an untrusted XML file from a repository (schemes, Core Data models): size-capped,
parsed with ``defusedxml`` (no DTDs, entities or external references), every failure one
error naming the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def parse_xml(path: Path, label: str, limit: int, error: type[ValueError], *,
              say_missing: bool = False, refused_note: str = "") -> Any:
    """The root element of ``path``, or ``error("<label>: <what is wrong>")``.

    ``say_missing`` reports a file that is not there as "missing" rather than "cannot read";
    ``refused_note`` is added to the message for a refused DTD or entity."""
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import ParseError, fromstring

    try:
        if path.stat().st_size > limit:
            raise error(f"{label}: larger than {limit // 1024 // 1024} MB")
        return fromstring(path.read_bytes())
    except OSError as err:
        if say_missing and isinstance(err, FileNotFoundError):
            raise error(f"{label}: missing") from None
        raise error(f"{label}: cannot read: {err.strerror or err}") from None
    except ParseError as err:
        raise error(f"{label}: not valid XML: {err}") from None
    except DefusedXmlException as err:
        raise error(f"{label}: refused: {type(err).__name__}{refused_note}") from None

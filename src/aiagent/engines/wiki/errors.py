"""The one error the wiki stages raise: a single line for the user, naming what is wrong."""

from __future__ import annotations


class WikiError(Exception):
    """Bad input (not a code folder, a broken steering file, an output path that is a file)."""

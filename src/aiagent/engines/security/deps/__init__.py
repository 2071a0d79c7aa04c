"""Dependency audit: lockfile parsers, OSV matching, the local advisory database."""

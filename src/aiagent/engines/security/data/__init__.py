"""Data shipped with the security engine (a small OSV advisory snapshot)."""

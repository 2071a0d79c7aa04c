"""Built-in rule packs (YAML package data)."""

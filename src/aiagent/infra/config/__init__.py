"""Configuration: layered TOML settings, paths, credentials."""

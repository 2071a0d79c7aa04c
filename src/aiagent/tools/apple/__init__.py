"""Apple platform tools (the built-in ``apple-dev`` skill's tools, spec FR-6)."""

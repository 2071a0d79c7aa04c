"""Static scanners: one module per kind, registered by name in :mod:`.registry`."""

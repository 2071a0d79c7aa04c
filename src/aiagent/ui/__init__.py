"""Front-ends: headless, terminal UI, web."""

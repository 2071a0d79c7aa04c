"""Skills that travel: a git registry, installs from the registry, git or a folder, the
project lock file, and export to (and import from) the folders other agents read."""

"""What the agent stands on: settings, storage, providers' wires, processes, the
sandbox and source parsing. Nothing here knows about the agent loop."""

"""Everything that spawns a process goes through here: the runner (process groups, deadlines,
byte caps, the sandbox) and the hardened environment for programs such as git."""

"""The way back: the spill store of full originals, signed cursors, and reading a saved result again (spill,
cursor, retrieve)."""

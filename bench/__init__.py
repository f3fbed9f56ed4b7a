"""Benchmarks of hostshape against its peers and against the JSON-parsing floor; run ``python bench/run.py``."""

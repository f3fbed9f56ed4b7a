"""One module per agent host, each a thin seam between that host and hostshape's core.

Importing this package imports no framework; each adapter imports its framework when first used and names the
extra to install when it is missing.
"""

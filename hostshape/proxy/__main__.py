"""``python -m hostshape.proxy``: the same as ``hostshape proxy``."""

from hostshape.proxy.cli import main

raise SystemExit(main())

"""``python -m hostshape``: the same as the ``hostshape`` command."""

from hostshape.cli import main

if __name__ == "__main__":
    raise SystemExit(main())

"""``python -m hostshape.cli``: the same as the ``hostshape`` command (the form MCP configs written without the
script on PATH use)."""

from hostshape.cli import main

if __name__ == "__main__":
    raise SystemExit(main())

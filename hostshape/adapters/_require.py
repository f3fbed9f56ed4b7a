"""Kept for imports of ``hostshape.adapters._require.require``; the helper lives in ``_shared``."""

from hostshape.adapters._shared import require

__all__ = ["require"]

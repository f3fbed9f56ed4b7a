"""Copy on write for the walks that cut inside a value (``clip_long``, ``narrow_wide``): only what changed is copied."""

from __future__ import annotations

from typing import Any


def with_members(item: dict[Any, Any] | list[Any], changed: dict[Any, Any]) -> dict[Any, Any] | list[Any]:
    """``item`` itself when ``changed`` is empty; else a copy of it (an object's members in their order, a list's
    items) with the members at ``changed``'s keys (list positions) replaced by their values. ``item`` is not
    changed."""
    if not changed:
        return item
    if isinstance(item, dict):
        return {key: changed.get(key, member) for key, member in item.items()}
    out = list(item)
    for index, new in changed.items():
        out[index] = new
    return out

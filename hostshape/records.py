"""Where the records are in a JSON document, and which of their fields identify them."""

from __future__ import annotations

from typing import Any

# Fields that identify a record, kept at all costs (issue: "id, number, key, sha, name, title, login, ref, path,
# state/status"); ``filename`` and ``full_name`` identify GitHub files and repositories.
IDENTIFIERS: tuple[str, ...] = (
    "number", "id", "key", "sha", "full_name", "name", "login", "filename", "path", "ref", "title", "state", "status",
)
# The one value a nested entity collapses to, in order of preference: a user to its login, a repository to its
# full name, a branch to its ref.
ENTITY_KEYS: tuple[str, ...] = ("full_name", "login", "ref", "name", "title", "key", "filename", "path", "sha", "id")
# Which identifier keys a list in the compact index, in order of preference.
PRIMARY_KEYS: tuple[str, ...] = ("number", "id", "sha", "key", "full_name", "filename", "path", "name", "login", "ref")
TITLE_KEYS: tuple[str, ...] = ("title", "name", "message", "summary", "subject")

Path = tuple[str, ...]


def find_records(value: Any, max_depth: int = 3) -> tuple[Path, list[Any]] | None:
    """The record list: the value itself when it is a list, else the dominant list of objects inside it.

    "Dominant" is the longest list of objects within ``max_depth`` levels of objects (``items`` of a search,
    ``commits`` of a comparison, ``data.repository.issues.nodes`` of GraphQL).
    """
    if isinstance(value, list):
        return (), value
    best: tuple[Path, list[Any]] | None = None
    for path, candidate in _lists(value, (), max_depth):
        if sum(isinstance(item, dict) for item in candidate[:50]) * 2 < min(len(candidate), 50):
            continue
        if best is None or len(candidate) > len(best[1]):
            best = (path, candidate)
    return best


def _lists(value: Any, path: Path, depth: int):  # type: ignore[no-untyped-def]
    if not isinstance(value, dict) or depth == 0:
        return
    for key, member in value.items():
        if isinstance(member, list) and member:
            yield (*path, key), member
        elif isinstance(member, dict):
            yield from _lists(member, (*path, key), depth - 1)


def with_path(value: Any, path: Path, replacement: Any) -> Any:
    """A copy of ``value`` with the member at ``path`` replaced (only the objects along the path are copied)."""
    if not path:
        return replacement
    copy = dict(value)
    copy[path[0]] = with_path(value[path[0]], path[1:], replacement)
    return copy


def primary_key(records: list[Any]) -> str | None:
    """The identifier most records carry, by IDENTIFIERS order of preference."""
    sample = [r for r in records[:50] if isinstance(r, dict)]
    if not sample:
        return None
    for key in PRIMARY_KEYS:
        if sum(key in r for r in sample) * 2 > len(sample):
            return key
    return None


def title_key(records: list[Any]) -> str | None:
    sample = [r for r in records[:50] if isinstance(r, dict)]
    for key in TITLE_KEYS:
        if sample and sum(isinstance(r.get(key), str) for r in sample) * 2 > len(sample):
            return key
    return None


def entity_value(obj: dict[str, Any]) -> Any:
    """The identifying value a nested entity collapses to, or None when it has none."""
    for key in ENTITY_KEYS:
        value = obj.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and value != "":
            return value
    return None

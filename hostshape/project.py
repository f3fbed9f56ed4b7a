"""Projection: keep the fields that matter, by a per-tool rule or by a zero-configuration structural shrink."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any

import jmespath
from jmespath.exceptions import JMESPathError

from hostshape.policy import Rule
from hostshape.records import entity_value, find_records, with_path

# Free text nested inside a record's members (a commit's signature, a label's description) is capped here;
# text in the record's own fields is capped later, by fit, only as far as the budget needs.
NESTED_PREVIEW_CHARS = 80
MAX_NESTED_ITEMS = 20
MAX_DEPTH = 4

_API_LINK = re.compile(r"^https?://api\.|/api/v\d|^https?://[^/]+/repos/")
_BASE64 = re.compile(r"^[A-Za-z0-9+/=\r\n]{400,}$")
_HAS_UPPER, _HAS_LOWER = re.compile("[A-Z]"), re.compile("[a-z]")
_NOISE_KEYS = frozenset({"_links", "node_id", "gravatar_id", "avatar_url", "url"})


@dataclass
class Projection:
    """The projected value, what projection removed (field names, for the envelope) and any note about it."""

    value: Any
    omitted: set[str] = field(default_factory=set)
    matched: bool = True
    by: str = "none"
    note: str | None = None


def project(value: Any, rule: Rule | None, *, generic: bool, max_records: int | None = None) -> Projection:
    """Apply ``rule`` (JMESPath or fields) to ``value``; else, when ``generic``, the structural shrink.

    Only the first ``max_records`` records are projected; later ones are kept as they are (a budget can show no
    more records than it has tokens, so they are counted, never shown). A JMESPath rule that fails on this value (a type error at run time) falls back to the structural shrink, and
    the projection's note says so."""
    if rule is not None and rule.jmespath is not None:
        try:
            result = jmespath.search(rule.jmespath, value)
        except JMESPathError as exc:
            fallback = shrink(value, max_records)
            fallback.note = f"the rule's JMESPath failed ({type(exc).__name__}); shrunk generically instead"
            return fallback
        return Projection(result, matched=result not in (None, [], {}), by="jmespath")
    if rule is not None and rule.fields is not None:
        return _project_fields(value, rule.fields, dict(rule.rename), max_records)
    if generic:
        return shrink(value, max_records)
    return Projection(value)


def _project_fields(value: Any, fields: tuple[str, ...], rename: dict[str, str],
                    max_records: int | None) -> Projection:
    found = find_records(value)
    omitted: set[str] = set()

    def pick(record: Any) -> Any:
        if not isinstance(record, dict):
            return record
        out: dict[str, Any] = {}
        for dotted in fields:
            got = _dotted(record, dotted)
            if got is not _ABSENT:
                out[rename.get(dotted, dotted)] = got
        top = {f.split(".", 1)[0] for f in fields}
        omitted.update(k for k in record if k not in top)
        return out

    if found is None:
        projected = pick(value)
        return Projection(projected, omitted, matched=bool(projected), by="fields")
    path, records = found
    picked = [pick(r) for r in records[:max_records]]
    matched = any(picked)
    return Projection(with_path(value, path, picked + records[len(picked):]), omitted, matched=matched, by="fields")


_ABSENT = object()


def _dotted(record: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(record, dict) or part not in record:
            return _ABSENT
        record = record[part]
    return record


def shrink(value: Any, max_records: int | None = None) -> Projection:
    """Zero-configuration shrink of the record list (or of the whole value when there is none).

    Drops link noise (API ``*_url`` links, ``_links``, ``node_id``, avatars), empty values, collapses nested
    entities to their identifying value, and turns long free text into a preview that says how much was cut.
    Records past ``max_records`` are kept as they are.
    """
    omitted: set[str] = set()
    found = find_records(value)
    if found is None:
        return Projection(_shrink_value(value, 0, omitted, entity=False), omitted, by="generic")
    path, records = found
    shrunk = [_shrink_value(r, 0, omitted, entity=False) for r in records[:max_records]]
    return Projection(_around(value, path, shrunk + records[len(shrunk):], omitted), omitted, by="generic")


def _around(value: Any, path: tuple[str, ...], records: list[Any], omitted: set[str]) -> Any:
    """``value`` shrunk as a container, with the shrunk record list put back at ``path``."""
    if not path:
        return records
    out: dict[str, Any] = {}
    for key, member in value.items():
        if key == path[0]:
            out[key] = _around(member, path[1:], records, omitted)
        elif _is_noise(key, member):
            omitted.add("*_url" if key.endswith("_url") else key)
        elif not _is_empty(member):
            out[key] = _shrink_value(member, 1, omitted, entity=True)
    return out


def _shrink_value(value: Any, depth: int, omitted: set[str], *, entity: bool) -> Any:
    if isinstance(value, dict):
        value = decode_base64_content(value)
        if entity:
            ident = entity_value(value)
            if ident is not None:
                return ident
        if depth >= MAX_DEPTH:
            return "{…}"
        out: dict[str, Any] = {}
        for key, member in value.items():
            if _is_noise(key, member):
                if not _is_empty(member):
                    omitted.add("*_url" if key.endswith("_url") else key)
                continue
            if _is_empty(member) or _is_rendering_of_sibling(key, value):
                continue
            out[key] = _shrink_value(member, depth + 1, omitted, entity=True)
        return out
    if isinstance(value, list):
        if depth >= MAX_DEPTH:
            return "[…]"
        items = [_shrink_value(v, depth + 1, omitted, entity=True) for v in value[:MAX_NESTED_ITEMS]]
        if len(value) > MAX_NESTED_ITEMS:
            items.append(f"…+{len(value) - MAX_NESTED_ITEMS} more")
        return items
    if isinstance(value, str):
        return preview(value, NESTED_PREVIEW_CHARS) if depth > 1 else _base64_placeholder(value)
    return value


def _is_rendering_of_sibling(key: str, record: dict[str, Any]) -> bool:
    """``body_html`` / ``body_text`` beside ``body``: another rendering of the same text."""
    base, _, suffix = key.rpartition("_")
    return suffix in ("html", "text") and base in record


def _is_noise(key: str, value: Any) -> bool:
    if key in _NOISE_KEYS and key != "url":
        return True
    if key == "url" or (key.endswith("_url") and key != "html_url"):
        return isinstance(value, str) or value is None
    return False


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def decode_base64_content(obj: dict[str, Any]) -> dict[str, Any]:
    """GitHub-style ``{"encoding": "base64", "content": ...}`` with the content decoded, when it is UTF-8 text."""
    content = obj.get("content")
    if obj.get("encoding") != "base64" or not isinstance(content, str):
        return obj
    try:
        text = base64.b64decode(content, validate=False).decode("utf-8")
    except (binascii.Error, ValueError):
        return obj
    return {**obj, "content": text, "encoding": "utf-8 (decoded from base64 by hostshape)"}


def _base64_placeholder(text: str) -> str:
    """A label for a long base64 blob (mixed-case letters and digits, no blanks); any other text as it is."""
    head = text[:1000]
    if len(text) >= 400 and _BASE64.match(head) and _HAS_UPPER.search(head) and _HAS_LOWER.search(head):
        return f"[base64 omitted: {len(text):,} chars]"
    return text


def cap_strings(value: Any, limit: int, cuts: list[int], depth: int = 0) -> Any:
    """``value`` with every string in a record's own fields (depth <= 2 here) previewed at ``limit`` chars;
    ``cuts[0]`` counts the strings cut."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        cuts[0] += 1
        return preview(value, limit)
    if depth >= 3:
        return value
    if isinstance(value, dict):
        return {k: cap_strings(v, limit, cuts, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [cap_strings(v, limit, cuts, depth + 1) for v in value]
    return value


def preview(text: str, limit: int) -> str:
    """``text`` when short; else its first ``limit`` characters (cut at a word) and how many were cut."""
    if len(text) <= limit:
        return text
    text_head = _base64_placeholder(text)
    if text_head is not text:
        return text_head
    cut = text.rfind(" ", 0, limit)
    cut = cut if cut > limit // 2 else limit
    return f"{text[:cut].rstrip()}…[+{len(text) - cut:,} chars]"

"""YAML, including multi-document streams (Kubernetes manifests, CI workflows, Helm values): each document, titled
``kind/name`` when it says so, and its keys three levels down, with their line ranges; sequence items are titled by
their ``name`` (or first scalar) value.

Built on PyYAML's composer (``yaml.compose_all`` with the safe loader: nodes with positions, nothing constructed,
aliases left as references to one node, so an alias bomb costs nothing); the walk visits each node once and stops
at ``MAX_NODES``. Without PyYAML, or for a stream it rejects, keys are read from the lines by their indentation.
"""

from __future__ import annotations

import re
from typing import Any

from hostshape.documents.model import MAX_ENTRIES, Entry, Outline, kept, title_of

MAX_NODES = 200_000
# PyYAML composes about 0.25 MB a second with libyaml (its resolver runs in Python), a few times slower without;
# longer streams are read line by line.
MAX_PARSED_CHARS = 250_000
MAX_PARSED_CHARS_LIBYAML = 600_000
_DEPTH = 3
_KEY = re.compile(r"([ \t]*)(?:- )?([\w./-][\w ./-]{0,80}?|\"[^\"\n]{1,80}\"|'[^'\n]{1,80}'):(?:[ \t]|$)")
_SEPARATOR = re.compile(r"---(?:[ \t]|$)")


def outline(text: str) -> Outline | None:
    """Documents and their keys, or None when the text holds no mapping at all."""
    notes: list[str] = []
    try:
        entries = _composed(text)
    except ImportError:
        entries = _scanned(text)
    except _TooLarge as exc:
        notes.append(str(exc))
        entries = _scanned(text)
    except Exception as exc:  # noqa: BLE001 - PyYAML raises many types (and RecursionError when deeply nested)
        notes.append(f"not parsed as YAML ({type(exc).__name__}); keys read from the lines")
        entries = _scanned(text)
    if not entries:
        return None
    shown, kept_notes = kept(entries, notes, "keys")
    documents = sum(1 for e in shown if e.level == 1 and e.title.startswith("document"))
    summary = f"{documents:,} documents" if documents > 1 else ""
    return Outline("yaml", shown, summary=summary, notes=kept_notes)


class _TooLarge(ValueError):
    pass


def _composed(text: str) -> list[Entry]:
    import yaml

    loader_class: Any = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    most = MAX_PARSED_CHARS_LIBYAML if loader_class is not yaml.SafeLoader else MAX_PARSED_CHARS
    if len(text) > most:
        raise _TooLarge(f"{len(text):,} characters: keys read from the lines, not parsed")
    documents = list(yaml.compose_all(text, Loader=loader_class))
    entries: list[Entry] = []
    seen: set[int] = set()
    many = len(documents) > 1
    for number, node in enumerate(documents, 1):
        if node is None:
            continue
        if many:
            entries.append(Entry(_document_title(number, node), 1, node.start_mark.line + 1, node.end_mark.line))
        _walk(node, 2 if many else 1, entries, seen)
        if len(entries) > MAX_ENTRIES or len(seen) > MAX_NODES:
            break
    return entries


def _document_title(number: int, node: Any) -> str:
    """``document 3: Deployment/web`` for a manifest that names its kind and name, else ``document 3``."""
    kind = _scalar(node, "kind")
    metadata = _child(node, "metadata")
    name = _scalar(metadata, "name") if metadata is not None else None
    label = "/".join(v for v in (kind, name) if v)
    return title_of(f"document {number}: {label}" if label else f"document {number}")


def _walk(node: Any, level: int, entries: list[Entry], seen: set[int]) -> None:
    """Keys of mapping ``node`` and items of sequences down to ``_DEPTH`` levels, each node visited once (an
    iterative walk: no recursion however deep the nesting)."""
    found: list[Entry] = []
    pending: list[tuple[Any, int]] = [(node, level)]
    while pending and len(entries) + len(found) <= MAX_ENTRIES and len(seen) <= MAX_NODES:
        current, depth = pending.pop()
        if id(current) in seen or depth > _DEPTH + 1:
            continue
        seen.add(id(current))
        children: list[tuple[Any, int]] = []
        if current.id == "mapping":
            for key, value in current.value:
                title = _key_title(key, value)
                found.append(
                    Entry(title, depth, key.start_mark.line + 1, max(key.start_mark.line + 1, value.end_mark.line))
                )
                children.append((value, depth + 1))
        elif current.id == "sequence":
            for index, item in enumerate(current.value):
                if item.id != "mapping":
                    continue
                label = _scalar(item, "name") or _first_scalar(item) or f"item {index + 1}"
                found.append(Entry(title_of(f"- {label}"), depth, item.start_mark.line + 1, item.end_mark.line))
                children.append((item, depth + 1))
        pending.extend(reversed(children))
    entries.extend(sorted(found, key=lambda e: e.start))


def _key_title(key: Any, value: Any) -> str:
    name = str(key.value) if key.id == "scalar" else "(complex key)"
    if value.id == "scalar" and value.value:
        return title_of(f"{name}: {value.value}", 100)
    if value.id == "sequence":
        return title_of(f"{name} ({len(value.value):,} items)")
    return title_of(name)


def _child(node: Any, key: str) -> Any:
    if node is None or node.id != "mapping":
        return None
    for k, v in node.value[:200]:
        if k.id == "scalar" and k.value == key:
            return v
    return None


def _scalar(node: Any, key: str) -> str | None:
    value = _child(node, key)
    return str(value.value) if value is not None and value.id == "scalar" and value.value else None


def _first_scalar(node: Any) -> str | None:
    for k, v in node.value[:20]:
        if v.id == "scalar" and v.value:
            return f"{k.value}: {v.value}"
    return None


def _scanned(text: str) -> list[Entry]:
    """Documents (``---``) and keys by indentation, the first ``_DEPTH`` indentation levels (linear)."""
    entries: list[Entry] = []
    indents: list[int] = []
    documents = 1
    starts = [1]
    for number, line in enumerate(text.splitlines(), 1):
        if _SEPARATOR.match(line):
            documents += 1
            starts.append(number)
            indents.clear()
            continue
        match = _KEY.match(line[:200])
        if not match or line.lstrip().startswith("#"):
            continue
        indent = len(match.group(1)) + (2 if line.lstrip().startswith("- ") else 0)
        while indents and indents[-1] > indent:
            indents.pop()
        if not indents or indents[-1] < indent:
            indents.append(indent)
        if len(indents) <= _DEPTH:
            entries.append(Entry(title_of(line.strip(), 100), len(indents) + 1, number))
        if len(entries) > MAX_ENTRIES:
            break
    if documents <= 1 or not entries:
        return [Entry(e.title, e.level - 1, e.start) for e in entries]
    heads = [Entry(f"document {n}", 1, start) for n, start in enumerate(starts, 1)]
    return sorted([*heads, *entries], key=lambda e: (e.start, e.level))

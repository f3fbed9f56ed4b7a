"""Documents: the outline of any text result, one module per kind, each built on a parser for that kind.

``outline_of(text)`` tells the kind from the content (``detect.kind_of``) and asks that kind's module for its
``Outline``; a kind that finds nothing, or fails, gives way to plain prose, so every text gets an outline. The
parsers are the ``hostshape[documents]`` extra (markdown-it-py, selectolax, defusedxml, PyYAML, unidiff, Pygments);
without them each kind reads its lines with linear-time patterns (docs/documents.md says which gives what).
Fitting, rendering and reading a part back are the same for every kind (``hostshape.fit.document``).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable

from hostshape.documents import (
    aria,
    asciidoc,
    code,
    config,
    diff,
    html,
    latex,
    log,
    manpage,
    markdown,
    notebook,
    org,
    prose,
    rst,
    sql,
    xml,
    yaml,
)
from hostshape.documents.detect import kind_of
from hostshape.documents.model import Entry, Outline, Section

__all__ = ["KINDS", "Entry", "Outline", "Section", "kind_of", "outline_of"]

_log = logging.getLogger("hostshape")

KINDS: dict[str, Callable[[str], Outline | None]] = {
    "notebook": notebook.outline,
    "html": html.outline,
    "xml": xml.outline,
    "diff": diff.outline,
    "aria": aria.outline,
    "manpage": manpage.outline,
    "org": org.outline,
    "asciidoc": asciidoc.outline,
    "latex": latex.outline,
    "config": config.outline,
    "sql": sql.outline,
    "log": log.outline,
    "yaml": yaml.outline,
    "rst": rst.outline,
    "markdown": markdown.outline,
    "code": code.outline,
    "prose": prose.outline,
}


def outline_of(text: str) -> Outline:
    """The outline of ``text`` by its kind; never raises (a kind that fails gives way to prose, and says so)."""
    kind = kind_of(text)
    notes: tuple[str, ...] = ()
    try:
        found = KINDS[kind](text)
    except Exception as exc:  # noqa: BLE001 - a document must never crash its host
        _log.warning("hostshape: the %s outline failed", kind, exc_info=True)
        found = None
        notes = (f"the {kind} reader failed ({type(exc).__name__}); outlined as prose",)
    if found is None or not found.entries:
        found = prose.outline(text) or Outline("text", (Entry("(text)", 1, 1),), structured=False)
    return dataclasses.replace(found, notes=(*notes, *found.notes)) if notes else found

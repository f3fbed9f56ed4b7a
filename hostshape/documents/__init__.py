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
    commented,
    config,
    diff,
    html,
    latex,
    log,
    manpage,
    markdown,
    nav,
    notebook,
    org,
    overloads,
    prose,
    rst,
    sql,
    xml,
    yaml,
)
from hostshape.documents.detect import kind_of
from hostshape.documents.model import MAX_ENTRIES, Entry, Outline, Section

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
    "commented": commented.outline,
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
    else:
        body = found.body if found.body is not None else text
        found = dataclasses.replace(found, entries=overloads.distinguished(found.entries, body))
        if found.kind in _PAGES:
            found = _after_navigation(found, body)
    return dataclasses.replace(found, notes=(*notes, *found.notes)) if notes else found


# kinds whose text a page may be (converted, or read as its readable text): links are ``[text](href)`` lines
_PAGES = frozenset({"markdown", "html"})


def _after_navigation(found: Outline, body: str) -> Outline:
    """``found`` with its head at the content, when the page (``body``) opens with its site's navigation: the
    navigation is an entry of its own (``navigation``), unless headings in it name it already, and a note says where
    it is."""
    navigation = nav.leading(body)
    if navigation is None:
        return found
    last = navigation.content - 1
    note = f"lines 1-{last:,} are the page's navigation ({navigation.links:,} links), before the head"
    entries = found.entries
    if entries[0].start > last:
        level = entries[0].level
        title = f"(navigation: {navigation.links:,} links)"
        entries = (Entry(title, level, 1, last, name="navigation"), *entries[: MAX_ENTRIES - 1])
    return dataclasses.replace(found, entries=entries, head=navigation.content, notes=(*found.notes, note))

"""Documents of docs sites and markup sources (docs13): Sphinx pages of the Alabaster and Furo themes, the same
site's pages as the MCP fetch server (readabilipy + markdownify) and html2text convert them, Asciidoctor's HTML and its
AsciiDoc source, reStructuredText sources (a Sphinx page, a PEP) and Markdown sources (MkDocs Material admonitions
under a front matter, an RFC with footnotes and tables). What the model receives is asserted
(corpus/documents/PROVENANCE.md)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from hostshape.documents import html, markdown, nav, outline_of, rst
from hostshape.fit.document import document
from hostshape.tokens import count_tokens
from hostshape.wayback import retrieve
from tests.answers import document_head as _head
from tests.answers import shaped_document as _shaped

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "documents"


# -- a table cell's paragraphs stay on its row ------------------------------------------------------------------
_CELLS = (
    "<html><body><main><h1>Syntax</h1><table><thead><tr><th><p>Feature</p></th><th><p>Old</p></th></tr></thead>"
    "<tbody><tr><td><p>Monospace</p></td><td><p>+text+</p><p>Reverts in compat mode.</p></td></tr>"
    "<tr><td><p>Table</p></td><td><ul><li>a|</li><li>asciidoc|</li></ul></td></tr></tbody></table>"
    "<p>After the table.</p></main></body></html>"
)


def test_a_table_cell_holding_paragraphs_and_lists_is_one_row() -> None:
    """Sphinx, Asciidoctor and Javadoc wrap each cell's text in ``<p>``: each row is still one line of cells."""
    body = document(_CELLS).body

    assert "| Feature | Old |" in body
    assert "| Monospace | +text+ Reverts in compat mode. |" in body
    assert "| Table | - a| - asciidoc| |" in body or "| Table | a| asciidoc| |" in body
    assert "\nAfter the table." in body


def test_a_cell_whose_end_the_markup_leaves_out_and_a_nested_table_keep_the_rows() -> None:
    """Cells without their end tags (read by the stream reader, as a page nested too deep is) close at the next cell
    or row; a table inside a cell is that cell's text; the tree and stream readers agree."""
    page = (
        "<html><body><main><h1>T</h1><table><tr><td><p>a<td><p>b<tr><td>c<td>"
        "<table><tr><td>x</td><td>y</td></tr></table></td></tr></table><p>End.</p></main></body></html>"
    )
    deep = page.replace("<main>", "<main>" + "<div>" * 1_200, 1)

    for text in (page, deep):
        body = document(text).body
        assert "| a | b |" in body and "| c | x y |" in body, body
        assert "\nEnd." in body


def test_an_admonition_laid_out_as_a_table_reads_as_one_line(tmp_path: Path) -> None:
    text, res, policy = _shaped((CORPUS / "asciidoctor_migrate_asciidoc_py.html").read_text(), 2000, tmp_path)

    assert "| Note | This documentation specifically covers migration from AsciiDoc.py 8.6. |" in text
    read = retrieve.read(res.handle, section="Table of contents", policy=policy)
    assert "| Scrollable, left margin TOC | toc2 | :toc: left |" in read


# -- an API reference's annotated attributes are named by their names ---------------------------------------------
def test_a_term_is_named_by_what_it_defines_not_by_its_annotation() -> None:
    assert html._name_of("auth: AuthType | None") == "auth"
    assert html._name_of("property links: dict[str, dict[str, str]]") == "links"
    assert html._name_of("max_redirects: int = 30") == "max_redirects"
    assert html._name_of("requests.get(url: str, params: dict = None) → Response") == "get"
    assert html._name_of("std::vector::push_back") == "push_back"


def test_a_furo_api_page_lists_a_class_members_by_name_and_reads_one_back(tmp_path: Path) -> None:
    text, res, policy = _shaped((CORPUS / "requests_api_furo.html").read_text(), 2000, tmp_path)

    assert "auth · cert · close · cookies" in text and "max_redirects" in text
    assert "AuthType · CertType" not in text
    assert "HTTPDigestAuth (L" in text  # by name: the signatures are in the sections (docs15)
    read = retrieve.read(res.handle, section="max_redirects", policy=policy)
    assert "Maximum number of redirects allowed" in read


# -- Markdown sources and pages converted by other converters -----------------------------------------------------
def test_a_front_matter_holds_no_heading() -> None:
    """Its closing ``---`` under ``key: value`` is no setext underline; the headings keep their line numbers."""
    found = markdown.outline("---\nicon: material/alert-outline\ntags:\n  - a\n---\n\n# Admonitions\n\nText.\n")

    assert found is not None and [(e.title, e.start) for e in found.entries] == [("Admonitions", 7)]
    assert markdown.front_matter("---\n\nA paragraph between two rules.\n---\n") == 0
    assert markdown.front_matter("---\n---\n") == 0
    page = markdown.outline("Intro\n---\n\nText.\n")
    assert page is not None and page.entries[0].title == "Intro"


def test_the_mkdocs_material_source_opens_on_its_title(tmp_path: Path) -> None:
    text, res, policy = _shaped((CORPUS / "mkdocs_material_admonitions.md").read_text(), 2000, tmp_path)

    assert "icon: material/alert-outline (" not in text.split("\nHead (lines ", 1)[0]
    assert "\n1 Admonitions (L5-539" in text
    assert "???" in retrieve.read(res.handle, section="Collapsible blocks", policy=policy)


def test_a_converted_heading_ends_without_its_permalink_sign() -> None:
    assert markdown.clean_title("Session Objects¶") == "Session Objects"
    assert markdown.clean_title("Section § ") == "Section"
    assert markdown.clean_title("¶") == "¶"


def test_a_header_of_labels_before_the_navigation_is_part_of_it(tmp_path: Path) -> None:
    """html2text writes a theme's icon buttons as one line of labels, then the sidebar's links: the content starts at
    the page's heading, and the navigation is an entry of its own."""
    text, res, policy = _shaped((CORPUS / "requests_advanced_furo_html2text.md").read_text(), 2000, tmp_path)

    assert _head(text).split("\n", 1)[1].startswith("# Advanced Usage¶")
    assert "1 (navigation: 17 links)" in text and "Session Objects (L40-" in text
    assert "socks5h" in retrieve.read(res.handle, section="SOCKS", policy=policy)


def test_a_line_of_labels_followed_by_prose_is_content() -> None:
    labels = "Contents Menu Expand Light mode Dark mode Auto light dark in light mode Auto light dark Skip to content\n"
    prose = "The library draws widgets fast, and every widget is a value you can test without any setup.\n\n"
    menu = "".join(f"- [Page {n}](/page{n}.html)\n" for n in range(8))

    assert nav.leading(f"{labels}\n{menu}\n# Title\n\n{prose}") == nav.Navigation(content=12, links=8)
    assert nav.leading(f"{labels}\n{prose}{menu}\n# Title\n\n{prose}") is None


def test_the_fetch_servers_page_has_its_sections_by_their_titles(tmp_path: Path) -> None:
    text, res, policy = _shaped((CORPUS / "requests_quickstart_fetch.md").read_text(), 2000, tmp_path)

    assert _head(text).split("\n", 1)[1].startswith("Contents of https://requests.readthedocs.io/")
    assert "Errors and Exceptions (L520-540" in text
    assert "allow_redirects=False" in retrieve.read(res.handle, section="Redirection and History", policy=policy)


# -- reStructuredText titles as they read -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "title"),
    [
        ("Limitations of ``requirements.txt`` files", "Limitations of requirements.txt files"),
        (":ref:`the guide <guide>` and :func:`load`", "the guide and load"),
        ("Use `Requests <https://example.org>`_ today", "Use Requests today"),
        ("*Emphasis* and **strong**", "Emphasis and strong"),
        ("unclosed ``x", "unclosed ``x"),
    ],
)
def test_an_rst_title_reads_without_its_inline_markup(raw: str, title: str) -> None:
    assert rst.clean_title(raw) == title


def test_a_pep_outline_names_its_sections_as_they_read(tmp_path: Path) -> None:
    text, res, policy = _shaped((CORPUS / "pep_0735_dependency_groups.rst").read_text(), 4000, tmp_path)

    assert "Limitations of requirements.txt files (L60-94" in text and "``" not in text.split("\nHead (lines ")[0]
    read = retrieve.read(res.handle, section="Limitations of requirements.txt files", policy=policy)
    assert "requirements.txt" in read
    assert outline_of((CORPUS / "requests_advanced.rst").read_text()).kind == "restructuredtext"


# -- hostile forms of this round's readers -------------------------------------------------------------------------
HOSTILE = {
    "100,000 cells of paragraphs in one row": lambda: (
        "<table><tr>" + "<td><p>a</p><p>b</p>" * 100_000 + "</tr></table>"
    ),
    "tables nested 50,000 deep in cells": lambda: "<table><tr><td>" * 50_000 + "x" + "</td></tr></table>" * 50_000,
    "a front matter of 100,000 key lines": lambda: "---\n" + "key: value\n" * 100_000 + "---\n# T\n",
    "rst titles of 10,000 backticks": lambda: "".join(
        f"{'`' * 5_000}{n}\n{'=' * 5_010}\n\ntext\n\n" for n in range(40)
    ),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_document_of_this_round_gets_a_shaped_answer_within_the_budget(name: str, tmp_path: Path) -> None:
    started = time.perf_counter()
    text, _, _ = _shaped(HOSTILE[name](), 2000, tmp_path)
    assert count_tokens(text) <= 2000 and text.strip()
    assert time.perf_counter() - started < 20

"""HTML pages from documentation generators (Sphinx autodoc, rustdoc, Doxygen, Javadoc, MkDocs Material), as a
scraping tool returns them: what the model receives maps the API's definitions by plain titles, without permalink
symbols, within the budget (corpus/documents/PROVENANCE.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from hostshape import Policy, shape
from hostshape.tokens import count_tokens
from hostshape.wayback import retrieve

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "documents"


def _first(name: str, budget: int, tmp_path: Path) -> tuple[str, Any, Policy]:
    policy = Policy(budget=budget, spill_dir=tmp_path)
    res = shape((CORPUS / name).read_text(), policy=policy, tool="read_document", server="documents")
    assert res.changed and res.fault is None
    return res.text, res, policy


@pytest.mark.parametrize(
    "name",
    [
        "sphinx_rtd_theme_demo_api.html",
        "rustdoc_log_struct_Record.html",
        "doxygen_cJSON_8h.html",
        "javadoc_commons_lang3_Validate.html",
        "mkdocs_material_setting_up_navigation.html",
        "sphinx_rtd_theme_changelog.html",
        "sphinx_rtd_theme_configuring_markdownify.md",
    ],
)
@pytest.mark.parametrize("budget", [2000, 4000, 8000])
def test_every_generator_page_fits_the_budget(name: str, budget: int, tmp_path: Path) -> None:
    policy = Policy(budget=budget, spill_dir=tmp_path)
    res = shape((CORPUS / name).read_text(), policy=policy, tool="read_document", server="documents")
    text = res.text if res.changed else (CORPUS / name).read_text()
    assert count_tokens(text) <= budget


def test_sphinx_autodoc_classes_and_methods_are_in_the_outline(tmp_path: Path) -> None:
    text, res, policy = _first("sphinx_rtd_theme_demo_api.html", 4000, tmp_path)
    outline = text.split("Head (lines")[0]
    assert "class test_py_module.test.Foo(qux, spam=False) (L" in outline
    assert "add(val1, val2)" in outline and "capitalize(myvalue)" in outline
    assert "[source]" not in outline and "¶" not in outline
    page = retrieve.read(res.handle, section="add", policy=policy)  # by the name the entry defines
    assert "Return the added values." in page


def test_rustdoc_titles_are_plain_text_without_permalinks(tmp_path: Path) -> None:
    text, _, _ = _first("rustdoc_log_struct_Record.html", 4000, tmp_path)
    outline = text.split("Head (lines")[0]
    assert "impl<'a> Record<'a> (L" in outline
    assert "pub fn builder() -> RecordBuilder<'a>" in outline
    assert "](" not in outline and "§" not in outline


def test_doxygen_member_titles_drop_the_permalink_diamond(tmp_path: Path) -> None:
    text, res, policy = _first("doxygen_cJSON_8h.html", 4000, tmp_path)
    assert "◆" not in text
    assert "cJSON_ArrayForEach (L" in text
    assert "cJSON_ArrayForEach" in retrieve.read(res.handle, section="cJSON_ArrayForEach", policy=policy)


def test_javadoc_inherited_methods_title_has_no_link_markup(tmp_path: Path) -> None:
    text, _, _ = _first("javadoc_commons_lang3_Validate.html", 4000, tmp_path)
    assert "Methods inherited from class java.lang.Object (L" in text
    assert "Method Details (L" in text


def test_a_page_converted_to_markdown_keeps_no_permalink_in_its_titles(tmp_path: Path) -> None:
    text, res, policy = _first("sphinx_rtd_theme_configuring_markdownify.md", 2000, tmp_path)
    outline = text.split("Head (lines")[0]
    assert "2 Configuration (L47-" in outline and "\uf0c1" not in outline  # 1 is the navigation before it
    assert "collapse_navigation" in retrieve.read(res.handle, section="Table of contents options", policy=policy)


def test_list_items_holding_paragraphs_read_on_one_line(tmp_path: Path) -> None:
    text, _, _ = _first("sphinx_rtd_theme_changelog.html", 2000, tmp_path)
    head = text.split("Head (lines")[1]
    assert "- Added support for docutils 0.22" in head
    assert "\n-\n" not in head


def test_a_long_changelog_names_every_release_and_reads_any_by_version(tmp_path: Path) -> None:
    text, res, policy = _first("eslint_plugin_react_CHANGELOG.md", 2000, tmp_path)
    assert count_tokens(text) <= 2000
    assert "[7.37.5] - 2025.04.03" in text  # the newest releases keep their dates
    span = re.search(r"\n  1\.(\d+)-205: [\d.]+ … 1\.0\.0 \((\d+) releases, by version only\)\n", text)
    assert span is not None and int(span.group(1)) + int(span.group(2)) == 206  # every release after the cut
    assert f"its last {span.group(2)} entries as the span of their versions" in text
    page = retrieve.read(res.handle, section="7.0.0", policy=policy)  # inside the span: read by its version
    assert "[7.0.0] - 2017-05-06" in page and "no-will-update-set-state" in page


def test_a_numbered_section_is_not_a_release() -> None:
    from hostshape.documents.model import Section

    assert Section("1", "[7.0.0] - 2017-05-06", 1, 1, 2).version == "7.0.0"
    assert Section("1", "4.68.0 (released 2026-10-27)", 1, 1, 2).version == "4.68.0"
    assert Section("1", "10.2 Grid layout", 1, 1, 2).version == ""
    assert Section("1", "3.1.0", 1, 1, 2).version == ""  # the title is the version: nothing to shorten


def test_terms_nested_thousands_deep_give_an_outline_of_a_few_levels() -> None:
    from hostshape.documents import html

    n = 5_000
    page = "<html><body>" + '<dl><dt id="x">term</dt><dd>' * n + "leaf" + "</dd></dl>" * n + "</body></html>"
    outline = html.outline(page)
    assert outline is not None and len(outline.entries) == n
    assert max(e.level for e in outline.entries) <= 1 + html.MAX_TERM_NESTING

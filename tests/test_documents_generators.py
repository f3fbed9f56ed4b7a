"""HTML pages from documentation generators (Sphinx autodoc, rustdoc, Doxygen, Javadoc, MkDocs Material), as a
scraping tool returns them: what the model receives maps the API's definitions by plain titles, without permalink
symbols, within the budget (corpus/documents/PROVENANCE.md)."""

from __future__ import annotations

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
    assert "1 Configuration (L47-" in outline and "\uf0c1" not in outline
    assert "collapse_navigation" in retrieve.read(res.handle, section="Table of contents options", policy=policy)


def test_list_items_holding_paragraphs_read_on_one_line(tmp_path: Path) -> None:
    text, _, _ = _first("sphinx_rtd_theme_changelog.html", 2000, tmp_path)
    head = text.split("Head (lines")[1]
    assert "- Added support for docutils 0.22" in head
    assert "\n-\n" not in head

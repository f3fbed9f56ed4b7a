"""Documents of generators and kinds not seen before (docs9): a docs page converted to Markdown whole (its site's
sidebar first), a page whose sidebar is plain ``<div>`` lists, an API page's overloads, a GitHub Actions job log in
colour, a CSV whose quoted fields span lines. What the model receives is asserted (corpus/documents/PROVENANCE.md).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from hostshape.documents import nav, outline_of
from hostshape.tokens import count_tokens
from hostshape.wayback import retrieve
from tests.answers import document_head as _head
from tests.answers import shaped_document as _shaped

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "documents"


def test_the_head_of_a_page_with_a_sidebar_is_its_content(tmp_path: Path) -> None:
    page = (CORPUS / "vitepress_deploy_markdownify.md").read_text()
    text, res, policy = _shaped(page, 2000, tmp_path)
    head = _head(text)
    assert head.startswith("71-") and head.split("\n", 1)[1].startswith("# Deploy Your VitePress Site")
    assert "[What is VitePress?](/guide/what-is-vitepress)" not in head
    assert "lines 1-70 are the page's navigation (22 links)" in text  # named, and still readable
    assert "1 Introduction (L" in text  # the sidebar's own headings stay in the outline
    assert "[Routing](/guide/routing)" in retrieve.read(res.handle, lines="1-70", policy=policy)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("starlight_frontmatter_markdownify.md", "# Frontmatter Reference\n"),
        ("docusaurus_markdown_features_markdownify.md", "# Markdown Features\n"),
        ("docusaurus_markdown_features.html", "# Markdown Features\n"),
        ("starlight_frontmatter.html", "# Frontmatter Reference\n"),
    ],
)
def test_every_generators_page_has_its_head_at_its_content(name: str, content: str, tmp_path: Path) -> None:
    text, _, _ = _shaped((CORPUS / name).read_text(), 2000, tmp_path)
    assert _head(text).split("\n", 1)[1].startswith(content)


def test_a_sidebar_of_plain_lists_is_an_entry_of_its_own(tmp_path: Path) -> None:
    links = "".join(f'<li><a href="/docs/page-{n}.html">Page number {n}</a></li>' for n in range(30))
    prose = "".join(
        f"<h2>Part {n}</h2><p>This part explains step {n} of the setup in a few plain sentences of text.</p>"
        for n in range(40)
    )
    page = (
        "<html><head><title>Setup</title></head><body>"
        f'<div class="left"><ul>{links}</ul></div>'
        f'<div class="right"><h1>Setup guide</h1><p>How to set the tool up, from the start.</p>{prose}</div>'
        "</body></html>"
    )
    text, res, policy = _shaped(page, 600, tmp_path)
    assert "1 (navigation: 30 links) (L1-30," in text
    assert _head(text).split("\n", 1)[1].startswith("# Setup guide\nHow to set the tool up")
    assert "Page number 29" in retrieve.read(res.handle, section="navigation", policy=policy)


def test_a_table_of_contents_or_badges_before_the_text_are_not_navigation() -> None:
    toc = "# Tool\n\n" + "".join(f"- [Part {n}](#part-{n})\n" for n in range(8)) + "\n"
    toc += "".join(f"## Part {n}\n\nPart {n} says what the tool does here, in a sentence.\n\n" for n in range(8))
    assert nav.leading(toc) is None  # links to places on the page: its table of contents
    readme = (CORPUS / "pydantic_2.14.4_README_CHANGELOG.md").read_text()
    assert nav.leading(readme) is None  # badges (images) are not links to other pages
    assert outline_of(readme).head == 1


def test_overloads_are_distinguishable_in_the_outline(tmp_path: Path) -> None:
    page = (CORPUS / "javadoc_commons_lang3_Validate.html").read_text()
    text, res, policy = _shaped(page, 4000, tmp_path)
    outline = text.split("\nHead (lines ", 1)[0]
    assert "notEmpty(T collection) (L" in outline and "notEmpty(T map) (L" in outline
    assert "isTrue(boolean expression, String message, long value) (L" in outline
    titles = [e.title for e in outline_of(page).entries]
    assert len([t for t in titles if t.startswith("notEmpty")]) == len({t for t in titles if t.startswith("notEmpty")})
    read = retrieve.read(res.handle, section="notEmpty(T map)", policy=policy)
    assert "T notEmpty(T map)" in read and "T notEmpty(T collection)" not in read
    assert "notEmpty" in retrieve.read(res.handle, section="notEmpty", policy=policy)  # the bare name still reads


def test_a_text_repeated_keeps_its_titles() -> None:
    log = (CORPUS / "pytest_failures.log").read_text()
    titles = [e.title for e in outline_of(log * 3).entries]
    assert titles.count("test_division") == 3  # the same signature below each: nothing to tell apart


def test_a_github_actions_logs_groups_are_sections(tmp_path: Path) -> None:
    log = (CORPUS / "github_actions_pytest_ruff.log").read_text()
    assert "\x1b[" in log
    text, res, policy = _shaped(log, 2000, tmp_path)
    assert text.startswith("log document: ") and "\x1b[" not in text
    assert "Run python -m pytest -v --color=yes test_sample.py (L184-245" in text
    assert "  12.2 FAILURES (L211" in text  # the tool's banners nest under the step's group
    assert "##[error]Process completed with exit code 1." in text
    assert "ZeroDivisionError: division by zero" in text.split("\nHead (lines ", 1)[0]
    step = retrieve.read(res.handle, section="Run ruff check --output-format=full lint_me.py", policy=policy)
    assert "E401 [*] Multiple imports on one line" in step and "\x1b[" not in step
    assert "[*]" not in text.split("Errors and warnings:")[0]  # ruff's "[*] 3 fixable" is not a parallel branch


def test_a_csv_field_spanning_lines_is_one_row(tmp_path: Path) -> None:
    rows = [["id", "title", "body", "state"]]
    for n in range(1, 200):
        body = f'First line of report {n}.\nSecond line, with a comma.\n"Quoted" third line.'
        rows.append([str(n), f"Report {n}", body, "open" if n % 3 else "closed"])
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    text, res, policy = _shaped(out.getvalue(), 1500, tmp_path)
    assert count_tokens(text) <= 1500
    shown = json.loads(text)
    assert shown["_hostshape"]["total"] == 199
    first = dict(zip(shown["items"]["fields"], shown["items"]["rows"][0], strict=True))
    assert first["body"] == rows[1][2] and first["state"] == "open"
    page = retrieve.read(res.handle, query="[?id=='150']", policy=policy)  # any row, whole, by the way back
    assert json.loads(page)["items"][0]["body"] == rows[150][2]


def test_hostile_links_and_repeated_names_get_a_shaped_answer(tmp_path: Path) -> None:
    brackets = ("[" * 2000 + "\n") * 1500  # every try of a link pattern at every bracket
    assert nav.leading(brackets) is None
    calls = "".join(f"## f\n{'[a](' * 400}f(x{n})\n" for n in range(3000))  # 3,000 overloads, each after brackets
    titles = [e.title for e in outline_of(calls).entries]
    assert titles[0] == "f(x0)" and len(set(titles)) == 3000
    text, _, _ = _shaped(calls, 1000, tmp_path)
    assert count_tokens(text) <= 1000

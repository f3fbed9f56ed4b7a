"""Documents of docs-site themes and exports (docs10): pages built by Hugo (hugo-book), Jekyll (Just the Docs) and
HonKit (GitBook's theme), the same pages converted whole to Markdown as scraping tools do (turndown, as Jina Reader
builds on, and node-html-markdown), and the structures of a GitHub-rendered README, a Confluence export and a Notion
export (synthetic pages in their markup). What the model receives is asserted (corpus/documents/PROVENANCE.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hostshape.documents import kind_of, outline_of
from hostshape.fit.document import document
from hostshape.tokens import count_tokens
from hostshape.wayback import retrieve
from tests.answers import document_head as _head
from tests.answers import shaped_document as _shaped

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "documents"


# -- a page converted with turndown's defaults is Markdown, not C ------------------------------------------------
_DEFAULTS = "\n\n".join(f"`pdf.option{n}`\n\nOption number {n} of the output (default is `{n}`)" for n in range(12))
_CONVERTED = (
    "Title: Options · Book\n\nURL Source: https://example.org/options.html\n\nMarkdown Content:\n\n"
    "Options\n=======\n\nThe options are set in a `book.json` file.\n\n### PDF Options\n\nVariable\n\nDescription\n\n"
    f'{_DEFAULTS}\n\n### Styles\n\n    {{\n        "styles": {{\n            "website": "styles/website.css"\n'
    "        }\n    }\n"
)


def test_prose_lines_ending_in_a_parenthesis_with_inline_code_are_not_c_signatures() -> None:
    """turndown writes a table's cells as paragraphs (``Top margin (default is `56`)``) and code as indented
    blocks: a C signature never holds a backtick, so the page is Markdown, with its headings."""
    outline = outline_of(_CONVERTED)

    assert kind_of(_CONVERTED) == "markdown"
    assert [e.title for e in outline.entries] == ["Options", "PDF Options", "Styles"]


def test_c_source_is_still_c() -> None:
    source = "#include <stdio.h>\n\n" + "".join(
        f"static int handler_{n}(struct request *req, int flags)\n{{\n    return flags + {n};\n}}\n\n" for n in range(6)
    )

    assert kind_of(source) == "code"
    assert outline_of(source).kind == "c source"


def test_the_honkit_page_converted_by_turndown_has_its_outline_after_its_navigation(tmp_path: Path) -> None:
    page = (CORPUS / "honkit_config_turndown.md").read_text()
    text, res, policy = _shaped(page, 1000, tmp_path)  # 1,848 tokens: passed as it is at 2,000

    assert text.startswith("markdown document:")
    for title in ("General Settings", "Plugins", "Structure", "PDF Options", "Styles"):
        assert f" {title} (L" in text
    assert "lines 1-49 are the page's navigation (36 links)" in text
    assert _head(text).split("\n", 1)[1].startswith("[Configuration](.)")
    pdf = retrieve.read(res.handle, section="PDF Options", policy=policy)
    assert "Paper size" in pdf and "(default is `a4`)" in pdf


# -- titles as a converter from HTML writes them ----------------------------------------------------------------
def test_titles_keep_code_spans_escaped_characters_and_underscores_inside_words() -> None:
    text = (
        "# Guide\n\n## Removal of deprecated `legacy_light` color scheme\n\ntext\n\n"
        "## Migrating \\_includes/nav\\_footer\\_custom.html\n\ntext\n\n## Using C\\# and F\\#\n\ntext\n\n"
        "## The `__init__` method of snake_case_name\n\ntext\n\n## **Bold** and _emphasis_ go\n\ntext\n"
    )

    titles = [e.title for e in outline_of(text).entries]

    assert titles == [
        "Guide",
        "Removal of deprecated legacy_light color scheme",
        "Migrating _includes/nav_footer_custom.html",
        "Using C# and F#",
        "The __init__ method of snake_case_name",
        "Bold and emphasis go",
    ]


def test_a_section_read_takes_a_title_with_underscores_as_the_outline_shows_it(tmp_path: Path) -> None:
    page = (CORPUS / "just_the_docs_migration_nhm.md").read_text()
    text, res, policy = _shaped(page, 4000, tmp_path)

    assert "Removal of deprecated legacy_light color scheme" in text
    assert "Migrating _includes/nav_footer_custom.html" in text
    read = retrieve.read(res.handle, section="Removal of deprecated legacy_light color scheme", policy=policy)
    assert "has now been removed" in read


# -- docs-site themes: the sidebar, the header and the page's table of contents are not the content -------------
def test_a_hugo_book_page_is_its_article_with_the_menu_and_toc_asides_left_out(tmp_path: Path) -> None:
    page = (CORPUS / "hugo_book_configuration.html").read_text()
    text, _, _ = _shaped(page, 2000, tmp_path)

    for title in ("Theme Parameters", "Search", "Hugo Site Configuration", "Goldmark Renderer", "Output Formats"):
        assert f" {title} (L" in text
    assert "Inject Partials" not in text  # the sidebar menu's pages
    assert "# Configuration\nAll theme parameters are set under [params]" in _head(text)


def test_a_jina_style_page_names_its_navigation_and_starts_its_head_at_the_content(tmp_path: Path) -> None:
    page = (CORPUS / "hugo_book_ripgrep_guide_turndown.md").read_text()
    text, res, policy = _shaped(page, 2000, tmp_path)
    head = _head(text)

    assert "lines 1-66 are the page's navigation (41 links)" in text
    assert head.startswith("67-") and head.split("\n", 1)[1].startswith("User Guide[#](#user-guide)")
    assert "[Inject Partials]" not in head
    for title in ("Configuration file", "File encoding", "Preprocessor", "Common options"):
        assert f" {title} (L" in text
    assert "RIPGREP_CONFIG_PATH" in retrieve.read(res.handle, section="Configuration file", policy=policy)


def test_a_just_the_docs_page_has_its_sidebar_and_search_left_out(tmp_path: Path) -> None:
    page = (CORPUS / "just_the_docs_migration.html").read_text()
    text, res, policy = _shaped(page, 2000, tmp_path)

    assert text.startswith("html document:")
    assert " v0.5.x - v0.6.0 (L" in text and " v0.3.3 … v0.4.x (L" in text
    assert "Search Just the Docs" not in text
    assert _head(text).split("\n", 1)[1].startswith("# Migrating and Upgrading")
    read = retrieve.read(res.handle, section="Pinning the Theme Version", policy=policy)
    assert "just-the-docs/just-the-docs@v0.12.0" in read


# -- exports and rendered READMEs, in their own markup (synthetic: no export of a permissive wiki was at hand) ---
def test_a_readme_as_github_rendered_it_has_clean_titles_and_its_sections_read_back(tmp_path: Path) -> None:
    """github-markdown-css's demo: GitHub's rendering with the permalink anchor and octicon inside each heading."""
    page = (CORPUS / "github_markdown_css_demo.html").read_text()
    text, res, policy = _shaped(page, 2000, tmp_path)

    for title in ("Tables", "Horizontal Rule", "Youtube videos", "Task List", "Backslash Escapes"):
        assert f" {title}" in text
    assert "user-content" not in text and "octicon" not in text
    assert "at least 4 spaces or 1 tab" in retrieve.read(res.handle, section="Code Blocks", policy=policy)


_GITHUB_README = (
    '<div id="readme" class="Box-body readme blob"><article class="markdown-body entry-content container-lg" '
    'itemprop="text">'
    + "".join(
        f'<div class="markdown-heading" dir="auto"><h{level} tabindex="-1" class="heading-element" dir="auto">'
        f'{title}</h{level}><a id="user-content-{slug}" class="anchor" aria-label="Permalink: {title}" '
        f'href="#{slug}"><svg class="octicon octicon-link" viewBox="0 0 16 16" aria-hidden="true"><path d="m7.7 3.2">'
        f'</path></svg></a></div>\n<p dir="auto">{body}</p>\n'
        for level, title, slug, body in (
            (1, "widget", "widget", "A small library for widgets."),
            (2, "Installation", "installation", "Run <code>pip install widget</code>."),
            (2, "Usage", "usage", "Call <code>widget.make()</code>."),
            (3, "Options", "options", "Pass <code>size=3</code> for a bigger one."),
        )
    )
    + "</article></div>"
)


def test_a_github_rendered_readme_has_its_headings_without_their_permalinks() -> None:
    doc = document(_GITHUB_README)

    assert [(s.id, s.title) for s in doc.sections] == [
        ("1", "widget"),
        ("1.1", "Installation"),
        ("1.2", "Usage"),
        ("1.2.1", "Options"),
    ]
    assert "Permalink" not in doc.body and "user-content" not in doc.body
    assert "## Installation\nRun pip install widget." in doc.body


_CONFLUENCE = """<!DOCTYPE html>
<html><head><title>Team Space : Release Process</title></head>
<body class="theme-default aui-theme-default"><div id="page"><div id="main" class="aui-page-panel">
<div id="main-header"><div id="breadcrumb-section"><ol id="breadcrumbs">
<li class="first"><span><a href="index.html">Team Space</a></span></li>
<li><span><a href="Engineering_123.html">Engineering</a></span></li>
<li><span><a href="Processes_456.html">Processes</a></span></li>
<li><span><a href="Releases_789.html">Releases</a></span></li>
<li><span><a href="Howtos_790.html">How-tos</a></span></li>
</ol></div>
<h1 id="title-heading" class="pagetitle"><span id="title-text"> Team Space : Release Process </span></h1></div>
<div id="content" class="view"><div class="page-metadata">Created by <span class='author'> A. Writer</span>, last
modified on Mar 25, 2022</div>
<div id="main-content" class="wiki-content group">
<h2 id="ReleaseProcess-Preparation">Preparation</h2><p>Freeze the branch two days before the release.</p>
<div class="confluence-information-macro confluence-information-macro-warning"><span class="aui-icon"></span>
<div class="confluence-information-macro-body"><p>Never release on a Friday.</p></div></div>
<h2 id="ReleaseProcess-Tagging">Tagging</h2><p>Tag the commit as vX.Y.Z.</p>
<div class="code panel pdl"><div class="codeContent panelContent pdl">
<pre class="syntaxhighlighter-pre">git tag -s v1.2.3
</pre></div></div></div>
<div class="pageSection group"><div class="pageSectionHeader"><h2 id="attachments" class="pageSectionTitle">
Attachments:</h2></div><div class="greybox" align="left"><img src="images/icons/bullet_blue.gif" alt=""/>
<a href="attachments/1/2.png">diagram.png</a> (image/png)<br/></div></div>
</div></div>
<div id="footer" role="contentinfo"><section class="footer-body"><p>Document generated by Confluence on Jan 26, 2023
11:19</p><div id="footer-logo"><a href="http://www.atlassian.com/">Atlassian</a></div></section></div>
</div></body></html>
"""


def test_a_confluence_export_names_its_breadcrumbs_as_navigation_and_leaves_its_footer_out() -> None:
    doc = document(_CONFLUENCE)

    assert [(s.id, s.title) for s in doc.sections] == [
        ("1", "(navigation: 5 links)"),
        ("2", "Team Space : Release Process"),
        ("2.1", "Preparation"),
        ("2.2", "Tagging"),
        ("2.3", "Attachments:"),
    ]
    assert doc.lines.line(doc.outline.head) == "# Team Space : Release Process"
    assert "Never release on a Friday." in doc.body and "git tag -s v1.2.3" in doc.body
    assert "Document generated by Confluence" not in doc.body


_NOTION = (
    "<html><head><title>Onboarding Guide</title><style>html { font-family: sans-serif; }</style></head><body>"
    '<article id="0f1e2d3c" class="page sans"><header><h1 class="page-title">Onboarding Guide</h1>'
    '<table class="properties"><tbody><tr class="property-row"><th>Tags</th><td><span>HR</span></td></tr>'
    "<tr><th>Created</th><td><time>@January 5, 2024 10:00 AM</time></td></tr></tbody></table></header>"
    '<div class="page-body"><nav id="a1" class="block-color-gray table_of_contents">'
    '<div class="table_of_contents-item"><a class="table_of_contents-link" href="#b1">First week</a></div>'
    '<div class="table_of_contents-item"><a class="table_of_contents-link" href="#b2">Accounts</a></div></nav>'
    '<h2 id="b1">First week</h2><p>Meet your buddy on Monday.</p><figure class="callout"><div><span class="icon">'
    '💡</span></div><div>Bring your laptop charger.</div></figure><h2 id="b2">Accounts</h2>'
    '<ul class="bulleted-list"><li>Request VPN access from IT.</li></ul><details open=""><summary>Wi-Fi</summary>'
    "<p>The password is on the board.</p></details></div></article></body></html>"
)


def test_a_notion_export_keeps_its_properties_and_callouts_and_leaves_its_toc_block_out() -> None:
    doc = document(_NOTION)

    assert [(s.id, s.title) for s in doc.sections] == [
        ("1", "Onboarding Guide"),
        ("1.1", "First week"),
        ("1.2", "Accounts"),
    ]
    assert "| Tags | HR |" in doc.body and "Bring your laptop charger." in doc.body
    assert doc.body.count("First week") == 1  # the table-of-contents block is a <nav>: left out


def test_a_setext_heading_whose_text_is_a_link_starts_the_content_not_the_navigation() -> None:
    """turndown underlines headings (``[Configuration](.)`` then ``====``): the heading is the content's first
    line, though its text is a link, and the head starts at it, not at its underline."""
    menu = "".join(f"*   [Page {n}](page{n}.html)\n" for n in range(8))
    page = f"Book title\n\n{menu}\n[Options](.)\n============\n\nThe options are set in a file of their own.\n"
    page += "".join(f"\n### Part {n}\n\nPart {n} says what it says, in a sentence of its own.\n" for n in range(3))

    doc = document(page)

    assert doc.lines.line(doc.outline.head) == "[Options](.)"
    assert doc.sections[0].title == "(navigation: 8 links)"
    assert [s.title for s in doc.sections[1:]] == ["Options", "Part 0", "Part 1", "Part 2"]


# -- a scraper's page: a cookie banner before the navigation -----------------------------------------------------
_BANNER = (
    'We use cookies to enhance your browsing experience and analyze our traffic. By clicking "Accept All", you '
    "consent to our use of cookies.\n\nAccept All\n\nReject All\n\n"
)
_MENU = "".join(f"*   [{name}](/{name.lower()})\n" for name in ("Docs", "API", "Guides", "Blog", "Pricing", "Login"))
_CONTENT = (
    "# Rate limits\n\nEvery API key may send 100 requests a minute; beyond that the API answers 429.\n\n"
    "## Raising the limit\n\nAsk support for a higher limit with your account id.\n"
)


def test_a_cookie_banner_before_the_navigation_is_part_of_it() -> None:
    """A whole page converted as a scraper does: the banner's paragraph and its buttons, then the site's menu; the
    content starts at its heading, and the banner is still read back with the navigation."""
    page = f"[Skip to main content](#main)\n\n{_BANNER}[![Logo](/logo.svg)](/)\n\n{_MENU}\n{_CONTENT}"

    doc = document(page)

    assert doc.lines.line(doc.outline.head) == "# Rate limits"
    assert [s.title for s in doc.sections] == ["(navigation: 7 links)", "Rate limits", "Raising the limit"]
    assert "We use cookies" in doc.body


def test_a_paragraph_without_buttons_before_a_list_of_links_is_content() -> None:
    """A README's introduction followed by its links (no button after the paragraph) is the content itself, and so
    is a banner-like paragraph followed by prose."""
    intro = "A small library that makes widgets for every screen, in a few lines of code and without any setup.\n\n"
    prose = "It draws them fast. Every widget is a value you can test, and the library keeps no global state.\n\n"

    assert document(f"{intro}{_MENU}\n{_CONTENT}").outline.head == 1
    assert document(f"{_BANNER}{prose}{_MENU}\n{_CONTENT}").outline.head == 1


# -- a page's own table of contents: the outline lists it ---------------------------------------------------------
def _toc_page(items: int, extra: str = "") -> str:
    toc = "".join(f'<li><a href="#s{n}">Section {n}</a>{extra}</li>' for n in range(items))
    body = "".join(f'<h2 id="s{n}">Section {n}</h2><p>What section {n} says.</p>' for n in range(items))
    return f"<html><body><main><h1>Guide</h1><p>Intro.</p><h2>Contents</h2><ul>{toc}</ul>{body}</main></body></html>"


def test_a_list_of_links_to_the_page_itself_is_one_line_saying_the_outline_lists_them() -> None:
    doc = document(_toc_page(6))

    assert "(table of contents: 6 links to this page's sections, listed by the outline)" in doc.body
    assert "- Section 0" not in doc.body
    assert [s.title for s in doc.sections][:3] == ["Guide", "Contents", "Section 0"]
    assert doc.lines.line(doc.sections[2].start) == "## Section 0"


def test_a_short_list_or_one_with_text_of_its_own_is_kept() -> None:
    assert "- Section 0" in document(_toc_page(4)).body  # four links: a list like any other
    assert "- Section 0 (new in 2.0, and much faster)" in document(_toc_page(6, " (new in 2.0, and much faster)")).body


def test_a_nested_table_of_contents_is_one_line_and_the_stream_reader_agrees() -> None:
    toc = "".join(
        f'<li><a href="#s{n}">Section {n}</a><ul><li><a href="#s{n}a">Part {n}a</a></li></ul></li>' for n in range(3)
    )
    page = f"<html><body><main><h1>Guide</h1><ol>{toc}</ol><h2 id='s0'>Section 0</h2><p>Text.</p></main></body></html>"
    deep = page.replace("<main>", "<main>" + "<div>" * 1_200, 1)  # deeper than the tree reader takes

    for text in (page, deep):
        body = document(text).body
        assert "(table of contents: 6 links to this page's sections, listed by the outline)" in body
        assert "Part 0a" not in body and "## Section 0\nText." in body


# -- hostile forms of what this round reads ---------------------------------------------------------------------
HOSTILE = {
    "a table of contents of 100,000 nested links": lambda: (
        "<html><body><main><h1>T</h1>" + '<ul><li><a href="#x">x</a>' * 100_000 + "</li></ul>" * 100_000 + "</main>"
    ),
    "20,000 headings of backticks and escapes": lambda: "".join(
        f"## {'`' * 500}\\_{n}{'`' * 499}\n\ntext\n\n" for n in range(20_000)
    ),
    "1,500 banner-like paragraphs with buttons": lambda: (
        "We use cookies to improve the site for everyone who reads it, and to count visits.\n\nAccept\n\n" * 1_500
        + "# Title\n\ntext\n"
    ),
    "setext underlines under 50,000 link lines": lambda: "[a](/b)\n===\n" * 50_000,
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_page_of_this_round_gets_a_shaped_answer_within_the_budget(name: str, tmp_path: Path) -> None:
    text, res, _ = _shaped(HOSTILE[name](), 1000, tmp_path)

    assert res.changed and 0 < count_tokens(text) <= 1000

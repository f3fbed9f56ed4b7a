"""Documents of kinds not seen before (docs15): files structured by ``#`` comments (a server's configuration,
Terraform, a Makefile) and by top-level blocks (Protocol Buffers, a GraphQL schema); an aria snapshot whose head is
its main landmark; an HTML page naming the headings of its sidebars; an API page whose classes' members all show
(definitions by name when their signatures would crowd them out). Corpus documents: corpus/documents/PROVENANCE.md.
"""

from __future__ import annotations

import time
from pathlib import Path

from hostshape.documents import kind_of, outline_of
from hostshape.documents.commented import looks_commented
from hostshape.wayback import retrieve
from tests.answers import assert_document_fits
from tests.answers import document_head as _head
from tests.answers import shaped_document as _shaped

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "documents"


# -- a file of # comments is not Markdown ---------------------------------------------------------------------
def test_a_commented_config_is_outlined_by_its_banners_and_comment_blocks(tmp_path: Path) -> None:
    text = assert_document_fits(CORPUS / "valkey_valkey.conf", 2000, tmp_path)
    assert text.startswith("commented file document:")
    assert "\n3 INCLUDES (L20-" in text and "APPEND ONLY MODE (L" in text and "TLS/SSL (L" in text
    assert '\n  5.1-10: By default, if no "bind" configuration directive' in text  # the blocks by first line
    _, res, policy = _shaped((CORPUS / "valkey_valkey.conf").read_text(), 2000, tmp_path)
    assert "port 6379" in retrieve.read(res.handle, section="NETWORK", policy=policy)


def test_terraform_is_outlined_by_its_banners_and_resources(tmp_path: Path) -> None:
    text = assert_document_fits(CORPUS / "terraform_aws_vpc_main.tf", 2000, tmp_path)
    assert "\n2 VPC (L24-" in text and 'resource "aws_vpc" "this"' in text
    assert 'resource "aws_nat_gateway" "this"' in text


def test_a_makefile_is_outlined_by_its_targets() -> None:
    found = outline_of((CORPUS / "valkey_src_Makefile").read_text())
    titles = [e.title for e in found.entries]
    assert found.kind == "commented file" and {"all", "install", "clean", "distclean", "test"} <= set(titles)
    assert not any(":=" in t or "?=" in t for t in titles)  # a variable is no target


def test_a_markdown_page_with_adjacent_headings_or_commented_examples_stays_markdown() -> None:
    """Headings separated by blank lines, and ``#`` lines indented in an example, are no comment blocks."""
    page = "# Guide\n\n## Install\n\nRun it.\n\n```sh\n# one\n# two\n# three\n```\n\n" + "".join(
        f"## Part {n}\n\n    # comment {n}\n    # more {n}\n\nText {n}.\n\n" for n in range(12)
    )
    assert kind_of(page) == "markdown"
    assert not looks_commented(page.splitlines())


def test_comment_runs_make_a_commented_file_and_banners_its_outline() -> None:
    conf = "".join(
        f"############ SECTION {n} ############\n\n# What option {n} does,\n# over two lines.\n#\n# option-{n} yes\n"
        f"option-{n} no\n\n"
        for n in range(6)
    )
    assert kind_of(conf) == "commented"
    found = outline_of(conf)
    assert [(e.title, e.level) for e in found.entries[:2]] == [("SECTION 0", 1), ("What option 0 does,", 2)]


def test_top_level_blocks_make_the_outline_of_a_schema() -> None:
    text = (CORPUS / "protobuf_descriptor.proto").read_text()
    titles = [e.title for e in outline_of(text).entries]
    assert "message FileDescriptorProto" in titles and "message FieldOptions" in titles
    schema = outline_of((CORPUS / "swapi_schema.graphql").read_text())
    assert "type Root" in [e.title for e in schema.entries] and "interface Node" in [e.title for e in schema.entries]


def test_a_banner_of_marks_or_a_long_line_of_marks_stays_linear() -> None:
    hostile = ("#" * 2000 + "\n") * 300 + ("# " + "=" * 1000 + " x " + "-" * 1000 + "\n") * 300
    started = time.perf_counter()
    outline_of(hostile)
    assert time.perf_counter() - started < 2.0


# -- an aria snapshot's head is its main content -----------------------------------------------------------------
def test_an_aria_snapshot_head_starts_at_its_main_landmark(tmp_path: Path) -> None:
    text, _, _ = _shaped((CORPUS / "requests_advanced_furo_aria_snapshot.md").read_text(), 2000, tmp_path)
    head = _head(text)
    assert head.startswith("76-") and head.split("\n", 2)[1].strip() == "- main [ref=e62]:"
    assert '- heading "Advanced Usage" [level=1]' in head.split("\n", 5)[3]
    assert "lines 1-75 come before the page's main landmark" in text
    assert 'textbox "Search" [ref=e10]' in text  # the sidebar's controls stay in the highlights


# -- an HTML page's sidebars: their headings named -----------------------------------------------------------------
def test_the_headings_of_a_sphinx_sidebar_are_named(tmp_path: Path) -> None:
    text = assert_document_fits(CORPUS / "requests_quickstart_alabaster.html", 2000, tmp_path)
    named = "headings left out with the navigation and sidebars: Useful Links · Table of Contents · Related Topics"
    assert named in text


def test_hidden_headings_are_not_named() -> None:
    page = (
        "<html><body><nav><h2>Menu</h2></nav><div hidden><h2>Secret</h2></div>"
        "<main><h1>Title</h1><p>Text.</p></main></body></html>"
    )
    notes = " ".join(outline_of(page).notes)
    assert "Menu" in notes and "Secret" not in notes and "Title" not in notes


# -- an API page: every class's members ----------------------------------------------------------------------------
def test_every_class_of_an_api_page_lists_its_members_at_2000(tmp_path: Path) -> None:
    text, res, policy = _shaped((CORPUS / "requests_api_furo.html").read_text(), 2000, tmp_path)
    outline = text.split("\nHead (lines ")[0]
    assert "raise_for_status" in outline and "iter_content" in outline  # Response's members
    assert "init_poolmanager" in outline  # HTTPAdapter's
    assert "definitions shown by name, their signatures in their sections" in text
    read = retrieve.read(res.handle, section="HTTPAdapter", policy=policy)
    assert "pool_connections" in read


def test_a_page_of_many_deep_headings_names_its_sidebar_in_bounded_time() -> None:
    deep = "<div>" * 900 + "".join(f"<h2>Part {n}</h2><p>Text {n}.</p>" for n in range(5000)) + "</div>" * 900
    page = f"<html><body><aside><h3>Related</h3></aside><main>{deep}</main></body></html>"
    started = time.perf_counter()
    found = outline_of(page)
    assert time.perf_counter() - started < 5.0
    assert "headings left out with the navigation and sidebars: Related" in " ".join(found.notes)

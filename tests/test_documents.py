"""Documents: each kind is told from its content and outlined by its parser (or its lighter fallback), and the
first answer (outline, highlights, head) fits the budget exactly at every budget."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hostshape import Policy, shape
from hostshape.documents import kind_of, outline_of
from hostshape.examples import payload_text
from hostshape.tokens import count_tokens

README = payload_text("awesome_python_README.md")
DIFF = payload_text("git_diff_github3py_2.0.0_3.0.0.diff")
ARIA = payload_text("playwright_aria_snapshot_cnn.yml")
HTML = payload_text("v8_blog_standalone_wasm.html")

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="4" failures="1" errors="1">
  <testsuite name="tests.test_api" tests="4" failures="1" errors="1" skipped="1" time="0.52">
    <testcase classname="tests.test_api" name="test_get" time="0.01"/>
    <testcase classname="tests.test_api" name="test_post" time="0.02">
      <failure message="AssertionError: assert 500 == 201">Traceback (most recent call last): ...</failure>
    </testcase>
    <testcase classname="tests.test_api" name="test_delete" time="0.01">
      <error message="ConnectionResetError: [Errno 104]">...</error>
    </testcase>
    <testcase classname="tests.test_api" name="test_patch" time="0.00"><skipped message="not yet"/></testcase>
  </testsuite>
</testsuites>
"""
RSS = """<?xml version="1.0"?>
<rss version="2.0"><channel><title>Release notes</title><link>https://example.org/</link>
<item><title>Version 2.1 released</title><link>https://example.org/2.1</link><pubDate>Mon, 06 Jan 2025</pubDate></item>
<item><title>Security advisory for 2.0</title><link>https://example.org/sa</link></item>
</channel></rss>
"""
ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title>
<entry><title>First post</title><updated>2024-01-01T00:00:00Z</updated></entry>
<entry><title>Second post</title></entry>
</feed>
"""
POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>shop-service</artifactId>
  <version>1.4.0</version>
  <dependencies>
    <dependency>
      <groupId>org.springframework.boot</groupId>
      <artifactId>spring-boot-starter-web</artifactId>
      <version>3.2.1</version>
    </dependency>
    <dependency>
      <groupId>junit</groupId>
      <artifactId>junit</artifactId>
      <scope>test</scope>
    </dependency>
  </dependencies>
</project>
"""
MANIFEST = """apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
    - name: http
      port: 80
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  template:
    spec:
      containers:
        - name: app
          image: nginx:1.27
"""
WORKFLOW = """name: CI
on:
  push:
    branches: [main]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - name: Check out
        uses: actions/checkout@v4
      - name: Run the tests
        run: pytest -q
  lint:
    runs-on: ubuntu-latest
    steps:
      - name: Ruff
        run: ruff check .
"""
RUST = """use std::fmt;

/// A point on the plane.
pub struct Point {
    x: i32,
    y: i32,
}

impl Point {
    pub fn new(x: i32, y: i32) -> Self {
        Point { x, y }
    }

    fn norm(&self) -> i32 {
        self.x.abs() + self.y.abs()
    }
}

pub trait Shape {
    fn area(&self) -> f64;
}

// fn commented_out() {}

mod tests {
    #[test]
    fn it_works() {
        assert_eq!(Point::new(1, 2).norm(), 3);
    }
}
"""
LOG = "\n".join(
    [
        "2025-01-06T10:00:00.0000000Z ##[group]Run actions/checkout@v4",
        "2025-01-06T10:00:01.0000000Z Syncing repository: example/shop",
        "2025-01-06T10:00:02.0000000Z ##[endgroup]",
        "2025-01-06T10:00:03.0000000Z ##[group]Run pytest -q",
        *[f"2025-01-06T10:00:04.0000000Z WARNING: deprecated call in module_{i}" for i in range(30)],
        "2025-01-06T10:00:05.0000000Z FAILED tests/test_api.py::test_post - AssertionError: assert 500 == 201",
        "2025-01-06T10:00:05.0000000Z E       assert 500 == 201",
        "2025-01-06T10:00:06.0000000Z ##[error]Process completed with exit code 1.",
        "2025-01-06T10:00:06.0000000Z ##[endgroup]",
    ]
)


def titles(text: str) -> list[str]:
    return [e.title for e in outline_of(text).entries]


def test_each_kind_is_told_from_its_content() -> None:
    kinds = {
        "markdown": README,
        "diff": DIFF,
        "aria": ARIA,
        "html": HTML,
        "xml": JUNIT,
        "yaml": MANIFEST,
        "code": RUST,
        "log": LOG,
        "prose": "The meeting moved to Thursday.\n\nBring the slides and the budget figures.\n",
    }
    assert {kind: kind_of(text) for kind, text in kinds.items()} == {k: k for k in kinds}
    assert kind_of(WORKFLOW) == "yaml" and kind_of(RSS) == "xml" and kind_of(POM) == "xml"


def test_markdown_headings_come_with_their_line_ranges() -> None:
    outline = outline_of(README)
    assert outline.kind == "markdown"
    assert [e.title for e in outline.entries][:4] == ["Awesome Python", "Sponsors", "Categories", "Projects"]
    assert "Admin Panels" in titles(README) and len(outline.entries) == 83
    lines = README.splitlines()
    for entry in outline.entries:
        assert lines[entry.start - 1].startswith("#") and entry.title.split()[0] in lines[entry.start - 1]


def test_html_main_content_is_readable_text_without_scripts_or_navigation() -> None:
    outline = outline_of(HTML)
    assert outline.kind == "html" and outline.body is not None
    assert outline.entries[0].title.startswith("Outside the web: standalone WebAssembly")
    assert "Running in Wasm runtimes" in titles(HTML) and "Current status" in titles(HTML)
    body = outline.body
    assert "<script" not in body and "function(" not in body.replace(" ", "") and "<div" not in body
    assert "[standalone Wasm](https://github.com/emscripten-core/emscripten/wiki/WebAssembly-Standalone)" in body
    for entry in outline.entries:  # line ranges refer to the readable text
        assert body.splitlines()[entry.start - 1].startswith("#")


def test_xml_kinds_name_what_matters() -> None:
    report = outline_of(JUNIT)
    assert report.kind == "junit report" and report.summary.startswith("4 tests: 1 failed, 1 errors, 1 skipped")
    assert report.highlights[0].startswith("L5 tests.test_api.test_post FAILURE: AssertionError")
    assert any("test_delete ERROR" in h for h in report.highlights)
    assert [e.title for e in outline_of(RSS).entries] == [
        "Version 2.1 released (Mon, 06 Jan 2025)",
        "Security advisory for 2.0",
    ]
    assert titles(ATOM)[0].startswith("First post")
    pom = titles(POM)
    assert "artifactId: shop-service" in pom
    assert "dependency: org.springframework.boot:spring-boot-starter-web:3.2.1" in pom
    names = {e.title: e.name for e in outline_of(POM).entries}
    assert names["dependency: org.springframework.boot:spring-boot-starter-web:3.2.1"] == "spring-boot-starter-web"


def test_generic_xml_is_outlined_five_levels_down_and_a_map_of_settings_by_its_count() -> None:
    """A record nested under wrappers (a profile's build plugin, five levels down) is in the outline; an element of
    many different leaves is titled by their count, not by a run of unlabelled values."""
    settings = "".join(f"<key{i}>value {i}</key{i}>" for i in range(10))
    xml = (
        '<?xml version="1.0"?>\n<project>\n<properties>' + settings + "</properties>\n<profiles>\n<profile><id>ci</id>"
        "<build><plugins><plugin><artifactId>failsafe</artifactId><version>3</version></plugin></plugins></build>"
        "</profile>\n</profiles>\n</project>\n"
    )
    entries = outline_of(xml).entries
    assert "properties (10)" in [e.title for e in entries]
    plugin = next(e for e in entries if e.name == "failsafe")
    assert plugin.level == 5 and plugin.title == "plugin: failsafe:3"


def test_yaml_names_every_document_and_its_keys() -> None:
    outline = outline_of(MANIFEST)
    assert outline.summary == "2 documents"
    names = [e.title for e in outline.entries]
    assert "document 1: Service/web" in names and "document 2: Deployment/web" in names
    assert "replicas: 3" in names
    workflow = titles(WORKFLOW)
    assert {"jobs", "test", "lint", "- Run the tests"} <= set(workflow)


def test_code_definitions_skip_comments() -> None:
    names = titles(RUST)
    assert names == [
        "pub struct Point",
        "impl Point",
        "pub fn new(x: i32, y: i32) -> Self",
        "fn norm(&self) -> i32",
        "pub trait Shape",
        "fn area(&self) -> f64;",
        "mod tests",
        "fn it_works()",
    ]


SOURCES = {
    "rust": """impl Printer {
    /// Set the maximum number of columns.
    ///
    /// Longer lines are replaced by a message saying that the line was omitted.
    #[inline]
    pub fn max_columns(&mut self, limit: Option<u64>) -> &mut Printer {
        let mut printer = Builder::new().build(vec![]);
        self.max_columns = limit;
        self
    }
}
""",
    "python": """import functools
import time
from typing import Any


def now() -> float:
    return time.time()


class Cache:
    \"\"\"A cache.\"\"\"

    # Entries expire after ttl seconds.
    @functools.lru_cache
    def expire(self, ttl: int) -> None:
        return None
""",
}


@pytest.mark.parametrize("language", sorted(SOURCES))
@pytest.mark.parametrize("lexed", [True, False])
def test_a_definitions_part_starts_at_the_comments_and_attributes_above_it(
    language: str, lexed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a definition's section gives its doc comment, attributes and decorators (they say what it does),
    with or without the lexer; a ``let`` line inside a body is not a definition."""
    from hostshape.documents import code

    if not lexed:
        monkeypatch.setattr(code, "_lexed", lambda text, language: [])
    text = SOURCES[language]
    entries = outline_of(text).entries
    method = entries[-1]
    lines = text.splitlines()
    assert method.title.startswith(("pub fn max_columns", "def expire"))
    assert lines[method.start - 1].strip().startswith(("/// Set the maximum", "# Entries expire"))
    assert not any("let mut" in e.title for e in entries)
    assert entries[0].start == (1 if language == "rust" else 6)


def test_a_log_shows_its_steps_and_errors_first_with_repeats_collapsed() -> None:
    outline = outline_of(LOG)
    assert [e.title for e in outline.entries] == ["Run actions/checkout@v4", "Run pytest -q"]
    assert outline.highlights[0].startswith("L35 FAILED tests/test_api.py::test_post")  # its timestamp left out
    assert any("##[error]Process completed" in h for h in outline.highlights[:3])
    warning = next(h for h in outline.highlights if "WARNING" in h)
    assert "(x30)" in warning


def test_a_diff_lists_files_with_their_changes_and_hunks() -> None:
    outline = outline_of(DIFF)
    assert outline.summary == "55 files changed, +898 -382"
    files = [e for e in outline.entries if e.level == 1]
    assert len(files) == 55 and files[0].title == "src/github3/__about__.py +1 -1"
    assert outline.entries[1].title.startswith("@@ -5,7 +5,7 @@")


def test_an_aria_snapshot_shows_landmarks_headings_and_refs() -> None:
    outline = outline_of(ARIA)
    assert outline.kind == "aria snapshot"
    assert "main: American Opportunity" in titles(ARIA)
    assert outline.highlights[0] == 'L171 textbox "Search" [ref=e139]'
    assert any(h.endswith('button "Find Jobs" [ref=e274]') for h in outline.highlights)
    links = [h for h in outline.highlights if " links: " in h]
    assert links[0].startswith("L20-60 links: e16 Markets · e21 Wilbur Ross pledges")
    assert sum(h.count(" · ") + 1 for h in links) == 105  # every named link, 12 a line


def test_every_link_of_a_page_snapshot_shows_with_its_ref_at_2000() -> None:
    """A page's links are most of its controls: at 2,000 tokens each named link is shown with its ref."""
    import re

    res = shape(ARIA, policy=Policy(budget=2000))
    assert count_tokens(res.text) <= 2000
    for name, ref in re.findall(r'- link "([^"]+)" \[ref=(e\d+)\]', ARIA):
        assert f"{ref} {name[:60]}" in res.text


@pytest.mark.parametrize(
    ("module", "text"),
    [("markdown_it", README), ("unidiff", DIFF), ("yaml", MANIFEST), ("defusedxml", JUNIT), ("pygments", RUST)],
)
def test_without_the_extra_the_fallback_still_outlines(monkeypatch: pytest.MonkeyPatch, module: str, text: str) -> None:
    with_parser = titles(text)
    for name in list(sys.modules):
        if name == module or name.startswith(module + "."):
            monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, module, None)  # import now raises ImportError
    without = titles(text)
    assert len(without) >= max(2, len(with_parser) // 2)
    assert with_parser[0].split()[0] in " ".join(without[:3])


def test_html_without_selectolax_reads_the_same_headings(monkeypatch: pytest.MonkeyPatch) -> None:
    with_parser = titles(HTML)
    monkeypatch.setitem(sys.modules, "selectolax", None)
    monkeypatch.setitem(sys.modules, "selectolax.lexbor", None)
    assert titles(HTML) == with_parser


DOCUMENTS = {"readme": README, "diff": DIFF, "aria": ARIA, "html": HTML, "log": LOG * 40, "manifest": MANIFEST * 90}


@pytest.mark.parametrize("name", list(DOCUMENTS))
@pytest.mark.parametrize("budget", [300, 500, 800, 1200, 2000, 3000, 4000, 6000, 8000])
def test_every_first_answer_fits_the_budget(tmp_path: Path, name: str, budget: int) -> None:
    text = DOCUMENTS[name]
    result = shape(text, policy=Policy(budget=budget, spill_dir=tmp_path))
    assert count_tokens(result.text) <= budget
    assert not result.changed or result.text.splitlines()[-1].startswith("[hostshape] ")
    if result.strategy == "outline":
        assert "query" not in result.text.splitlines()[-1]  # the hint names only the reads that work on text


def test_the_outline_gives_way_coarser_levels_first_and_says_so(tmp_path: Path) -> None:
    small = shape(README, policy=Policy(budget=900, spill_dir=tmp_path)).text
    large = shape(README, policy=Policy(budget=4000, spill_dir=tmp_path)).text
    assert "1.3.14 Admin Panels (L330-337, 110 tok)" in large
    assert "1.3 Projects (L129-1153, 17,326 tok)" in small and "(L330-337" not in small
    last = small.splitlines()[-1]
    assert "outline: level 3 shown by title only, grouped under their parent" in last
    assert "1.3.1-74: AI and Agents · Deep Learning" in small  # every heading is still named


def test_sizes_are_the_policys_token_counts(tmp_path: Path) -> None:
    text = shape(README, policy=Policy(budget=4000, spill_dir=tmp_path)).text
    assert "markdown document: 1,183 lines, 18,471 tokens." in text  # the o200k count of the whole file
    lines = README.splitlines(keepends=True)
    assert f"1.1 Sponsors (L7-10, {count_tokens(''.join(lines[6:10]))} tok)" in text
    cl100k = shape(README, policy=Policy(budget=4000, spill_dir=tmp_path, encoding="cl100k_base")).text
    assert f"{count_tokens(README, 'cl100k_base'):,} tokens." in cl100k


RST = """=======
Project
=======

Install with ``pip``::

    Not a title
    ~~~~~~~~~~~

See `the docs <https://example.org>`_ and :ref:`usage`.

Changelog
=========

2.0.0
-----

- Dropped Python 3.8.

1.0.0
-----

.. note:: First release.
"""


def test_restructuredtext_titles_are_levelled_by_their_adornment_in_order_of_use() -> None:
    assert kind_of(RST) == "rst"
    outline = outline_of(RST)
    assert outline.kind == "restructuredtext"
    assert [(e.title, e.level, e.start) for e in outline.entries] == [
        ("Project", 1, 1),
        ("Changelog", 2, 12),
        ("2.0.0", 3, 15),
        ("1.0.0", 3, 20),
    ]


PYTHON_LIKE_YAML = '''"""Logic for creating models."""

# Because `dict` is in the local namespace of the class, we use `Dict` for annotations.
# TODO v3: fall back to dict when the deprecated method is removed.
from __future__ import annotations

import sys
import typing
from typing import Any

# Keep these type aliases available at runtime:
TupleGenerator = typing.Generator


class Model:
    """A model.

    See [the docs](https://docs.example.org/models), [the API](https://docs.example.org/api) and
    [the concepts](https://docs.example.org/concepts), and the example below.

    ```python
    class User(Model):
        id: int
    ```
    """

    def __init__(self, **data: Any) -> None:
        if data:
            self.data = data
        else:
            self.data = {}

    def copy(self) -> Model:
        try:
            return Model(**self.data)
        except TypeError:
            raise


def create_model(name: str) -> type[Model]:
    if sys.version_info >= (3, 12):
        return Model
    return Model
'''


def test_indented_source_with_comment_lines_is_code_not_yaml_or_markdown() -> None:
    """Comments look like headings and indented bodies like YAML; definitions outside any fence say code."""
    assert kind_of(PYTHON_LIKE_YAML) == "code"
    assert [e.title for e in outline_of(PYTHON_LIKE_YAML).entries][:2] == [
        "class Model",
        "def __init__(self, **data: Any) -> None",
    ]

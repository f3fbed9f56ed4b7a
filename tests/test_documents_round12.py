"""Round 12 of the documents engine: a ``section`` read by the forms a model recalls a title in (another case,
without markup, numbering, commit hash or file:line, a trailing colon, clipped, a part of it, a path of titles),
candidates instead of a guess when several fit, and bounded work on hostile asks."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from hostshape import Policy, shape
from hostshape.documents.model import Section
from hostshape.fit.section_match import TITLE_CHARS, normal, recalled
from hostshape.tokens import count_tokens
from hostshape.wayback import retrieve


def _shaped(text: str, budget: int, tmp_path: Path) -> tuple[Any, Policy]:
    policy = Policy(budget=budget, spill_dir=tmp_path)
    res = shape(text, policy=policy, tool="read_document", server="documents")
    assert res.fault is None and res.changed and res.handle
    return res, policy


def _guide() -> str:
    parts = ["# Handbook of the Widget Service\n\nIntro.\n"]
    for i, name in enumerate(["Installation", "Configuration", "Deployment"], 1):
        parts.append(f"## {i} {name}\n\nAbout {name.lower()} {'text ' * 60}\n")
        for j, sub in enumerate(["Theme", "Logging", "Storage"], 1):
            parts.append(f"### {i}.{j} `{sub}` options\n\n{name} {sub} body {i}{j}. {'words ' * 80}\n")
    return "".join(parts)


def _header(page: str) -> str:
    return page.split("\n", 1)[0]


@pytest.mark.parametrize(
    ("asked", "title"),
    [
        ("2 Configuration", "2 Configuration"),  # as shown
        ("configuration", "2 Configuration"),  # case, without numbering
        ("Configuration:", "2 Configuration"),  # a trailing colon
        ("Handbook of the Widget", "Handbook of the Widget Service"),  # a part of it
        ("Configuration > Theme options", "2.1 Theme options"),  # a path of titles
        ("Deployment > 3.3 Storage options", "3.3 Storage options"),
        ("3.2 `logging` options", "3.2 Logging options"),  # markup and case
    ],
)
def test_a_section_is_read_by_the_form_a_model_recalls(asked: str, title: str, tmp_path: Path) -> None:
    res, policy = _shaped(_guide(), 600, tmp_path)
    page = retrieve.read(res.handle, section=asked, policy=policy)
    assert repr(title) in _header(page), page[:300]


def test_several_fitting_sections_are_candidates_not_a_guess(tmp_path: Path) -> None:
    res, policy = _shaped(_guide(), 600, tmp_path)
    page = retrieve.read(res.handle, section="Theme options", policy=policy)
    assert "3 sections match" in page and "document, section" not in page
    for ident, title in (("1.1.1", "1.1"), ("1.2.1", "2.1"), ("1.3.1", "3.1")):
        assert f"{ident} '{title} Theme options'" in page
    assert count_tokens(page) <= 600
    page = retrieve.read(res.handle, section="Configuration > Theme options", policy=policy)  # the path decides
    assert "section 1.2.1 " in _header(page)


def _commits(n: int) -> str:
    parts = []
    for i in range(n):
        digest = f"{i:02d}" + "9e1f" * 9 + "cd"
        parts.append(
            f"commit {digest}\nAuthor: Dev <dev@example.org>\nDate:   Mon Jan {i % 28 + 1} 10:00:00 2024 +0000\n\n"
            f"    Teach the scheduler about rule {i} of the queue\n\n    Body of change {i}.\n\n"
            f" src/rule{i}.py | 3 ++-\n"
        )
    return "\n".join(parts)


def test_a_commit_is_read_by_its_subject_without_its_hash(tmp_path: Path) -> None:
    res, policy = _shaped(_commits(30), 1000, tmp_path)
    page = retrieve.read(res.handle, section="Teach the scheduler about rule 17 of the queue", policy=policy)
    assert "src/rule17.py" in page and "src/rule18.py" not in page
    page = retrieve.read(res.handle, section="teach the scheduler about rule 17", policy=policy)
    assert "src/rule17.py" in page


def _sections(titles: list[str]) -> list[Section]:
    return [Section(str(i + 1), t, 1, i * 3 + 1, i * 3 + 3) for i, t in enumerate(titles)]


def test_clipped_titles_match_their_start_both_ways() -> None:
    sections = _sections(["src/app.c:12:5: error: use of undeclared identifier 'wid…", "src/app.c:40: warning: x"])
    full = "error: use of undeclared identifier 'widget_count'"
    assert [s.id for s in recalled(sections, full)] == ["1"]  # the whole message, the outline clipped it
    assert [s.id for s in recalled(sections, "error: use of undecl…")] == ["1"]  # the model clipped it
    assert recalled(sections, "nothing like it") == []


def test_normalisation_folds_case_markup_and_punctuation() -> None:
    assert normal("**Theme**: `Options`!") == "theme options"
    assert len(normal("x" * 10 * TITLE_CHARS)) == TITLE_CHARS


def test_hostile_asks_cost_bounded_time() -> None:
    sections = _sections([("a" * 5000) + f" {i}" for i in range(3000)])
    for asked in ("a" * 1_000_000, " > ".join(["a" * 100] * 5000), "(a+)+$" * 1000, "…" * 100_000):
        start = time.perf_counter()
        recalled(sections, asked)
        assert time.perf_counter() - start < 2.0


# -- a failed result of a test report says why, whatever the format names its message ----------------------------
def test_a_failed_results_message_is_in_its_title() -> None:
    from hostshape.documents import outline_of

    text = (
        '<?xml version="1.0"?>\n<run>\n<suite name="S" result="Failed">\n'
        '<case name="Quick" result="Passed" note="ran fine today"><ms>1</ms></case>\n'
        '<case name="Slow_Case" result="Failed" note="Exceeded the limit of 5 ms"><ms>9</ms></case>\n'
        '<case name="Wrong" result="Error"><detail><text>Expected 3 but got 2</text></detail></case>\n'
        "</suite>\n</run>\n"
    )
    titles = [e.title for e in outline_of(text).entries]
    assert "case Slow_Case Failed: Exceeded the limit of 5 ms" in titles
    assert "case Wrong Error: Expected 3 but got 2" in titles
    assert "case Quick Passed" in titles  # a passed one says nothing more


def test_nunit_timeout_message_is_in_the_first_answer(tmp_path: Path) -> None:
    text = (Path(__file__).resolve().parent.parent / "corpus" / "documents" / "dotnet_nunit.xml").read_text("utf-8")
    policy = Policy(budget=2000, spill_dir=tmp_path)
    res = shape(text, policy=policy, tool="read_document", server="documents")
    assert "Test exceeded Timeout value 1ms." in res.text

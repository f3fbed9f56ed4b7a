"""Red team, round 4: broken promises found against the document engine, the stores and the way back, each in the
form a user meets it (``shape``, ``read`` or the CLI)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import hostshape
from hostshape import Policy
from hostshape.documents.grep import MAX_MATCHED_LINES
from hostshape.tokens import count_tokens
from hostshape.wayback.retrieve import read

HEADINGS = "".join(f"# Heading {i}\n\ntext {i}\n\n" for i in range(20_000))
LOG = "".join(
    f"2026-12-01T10:{i % 60:02d}:00Z INFO worker-{i % 7} request {i} done in {i % 100}ms\n" for i in range(20_000)
)


@pytest.mark.parametrize("text", [HEADINGS, LOG, "word " * 200_000], ids=["markdown", "log", "prose"])
def test_a_cut_text_at_a_small_budget_still_gives_its_handle(tmp_path: Path, text: str) -> None:
    shaped = hostshape.shape(text, policy=Policy(budget=50, spill_dir=tmp_path))
    assert count_tokens(shaped.text) <= 50
    assert shaped.truncated and shaped.handle
    assert f"handle={shaped.handle}" in shaped.text


def test_a_section_whose_title_looks_like_a_shown_size_is_read_by_that_title(tmp_path: Path) -> None:
    policy = Policy(budget=300, spill_dir=tmp_path)
    text = "# Intro (L1-5, 10 tok)\n\n" + "alpha " * 400 + "\n\n# Other\n\n" + "beta " * 400 + "\n"
    shaped = hostshape.shape(text, policy=policy)
    page = read(str(shaped.handle), section="Intro (L1-5, 10 tok)", policy=policy)
    assert page.startswith("markdown document, section 1 ")
    assert count_tokens(page) <= 300


def test_a_grep_stopped_at_its_match_cap_says_truncated_on_every_page(tmp_path: Path) -> None:
    policy = Policy(budget=2000, spill_dir=tmp_path)
    text = "".join(f"line {i} {'match' if i % 3 == 0 else 'none'}\n" for i in range(3 * MAX_MATCHED_LINES + 30))
    shaped = hostshape.shape(text, policy=policy)
    cursor: str | None = None
    for _ in range(2000):
        page = read(str(shaped.handle), cursor=cursor, policy=policy, **({} if cursor else {"grep": "match"}))
        assert count_tokens(page) <= 2000
        assert page.splitlines()[-1].startswith("[hostshape] truncated")
        found = re.search(r"next=(\S+)", page.splitlines()[-1])
        if found is None:
            break
        cursor = found.group(1)
    else:
        pytest.fail("next never ended")


def test_a_cursor_passed_with_another_part_is_refused(tmp_path: Path) -> None:
    policy = Policy(budget=300, spill_dir=tmp_path)
    shaped = hostshape.shape(HEADINGS, policy=policy)
    first = read(str(shaped.handle), lines="1-4000", policy=policy)
    cursor = re.search(r"next=(\S+)", first.splitlines()[-1])
    assert cursor is not None
    page = read(str(shaped.handle), cursor=cursor.group(1), lines="3000-3001", policy=policy)
    assert count_tokens(page) <= 300
    assert page.startswith("[hostshape]")
    assert "lines '1-4000'" in page and "lines '3000-3001'" in page


@pytest.mark.parametrize(
    ("part", "again"),
    [({"section": "Heading 3"}, {"section": "heading 3"}), ({"lines": "1-"}, {"lines": "1-999999"})],
    ids=["section-by-title", "lines-to-the-end"],
)
def test_a_cursor_passed_with_its_own_part_pages_that_part(
    tmp_path: Path, part: dict[str, str], again: dict[str, str]
) -> None:
    policy = Policy(budget=300, spill_dir=tmp_path)
    text = "".join(f"# Heading {i}\n\n" + f"word{i} " * 600 + "\n\n" for i in range(6))
    shaped = hostshape.shape(text, policy=policy)
    first = read(str(shaped.handle), policy=policy, **part)
    cursor = re.search(r"next=(\S+)", first.splitlines()[-1])
    assert cursor is not None
    with_part = read(str(shaped.handle), cursor=cursor.group(1), policy=policy, **again)
    assert with_part == read(str(shaped.handle), cursor=cursor.group(1), policy=policy)
    assert not with_part.startswith("[hostshape]")


@pytest.mark.parametrize("budget", [120, 150])
def test_next_walks_every_line_once_at_a_small_budget(tmp_path: Path, budget: int) -> None:
    policy = Policy(budget=budget, spill_dir=tmp_path)
    text = "".join(f"# H{i}\n\n" + f"word{i} " * 30 + "\n\nline two\n\n" for i in range(10))
    shaped = hostshape.shape(text, policy=policy)
    cursor: str | None = None
    shown = []
    for _ in range(2000):
        page = read(str(shaped.handle), cursor=cursor, policy=policy)
        assert count_tokens(page) <= budget
        shown.append("\n".join(page.split("\n")[1:-1]))
        found = re.search(r"next=(\S+)", page.splitlines()[-1])
        if found is None:
            break
        cursor = found.group(1)
    assert "".join(shown).replace("\n", "") == text.replace("\n", "")

"""Prose is cut where a reader would stop: a paragraph, a line, else a word's end; inside a word only when no word
ends near the cut (issue 25, bug fix)."""

from __future__ import annotations

from pathlib import Path

from hostshape import Policy, shape
from hostshape.fit.text import boundary
from hostshape.tokens import count_tokens


def _shown(text: str) -> str:
    """The result's text above the envelope line."""
    return text[: text.rfind("\n")]


def test_a_cut_with_no_line_end_near_falls_at_a_word_end(tmp_path: Path) -> None:
    source = " ".join(f"build {4812 + i * 7919} took {i * 104729 % 99991} ms;" for i in range(400))  # one long line
    for budget in range(40, 90, 3):
        result = shape(source, policy=Policy(budget=budget, spill_dir=tmp_path))
        shown = _shown(result.text)
        assert result.changed and count_tokens(result.text) <= budget
        assert shown and source.startswith(shown)
        assert source[len(shown)] == " ", (budget, shown[-20:])  # the next source character is a blank


def test_numbers_with_separators_are_not_cut_at_their_separator() -> None:
    text = "total 4,812,000 and more"
    assert boundary(text, text.index(",") + 2) == text.index(" 4") + 1  # "total |4,812,000", not "total 4,"


def test_a_text_without_any_word_end_near_is_still_cut_at_the_budget() -> None:
    text = "x " + "a" * 5000
    assert boundary(text, 3000) == 3000  # the only word end is far before the cut: cut inside the token


def test_a_line_end_near_the_cut_is_preferred_to_a_word_end() -> None:
    text = "word " * 8 + "end\n" + "tail words here"
    assert boundary(text, len(text) - 3) == text.index("\n") + 1

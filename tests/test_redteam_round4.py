"""Red team, round 4: broken promises found against the document engine, the stores and the way back, each in the
form a user meets it (``shape``, ``read`` or the CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest

import hostshape
from hostshape import Policy
from hostshape.tokens import count_tokens

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

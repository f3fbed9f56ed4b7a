"""The smallest answers: at every budget from 1 token up, the text fits exactly, and it names the handle that gets
the result back from the smallest budget that can hold it; below that, once there is room to say so, it says the
budget is too small for its handle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hostshape import Policy, shape
from hostshape.output.envelope import NO_ROOM, last_resort_texts
from hostshape.tokens import count_tokens
from hostshape.wayback.retrieve import read

PAYLOADS: dict[str, Any] = {
    "a record list": json.dumps([{"id": i, "title": f"item number {i}", "body": "text " * 30} for i in range(60)]),
    "an object": json.dumps({"name": "app", "settings": {f"key_{i}": "value " * 8 for i in range(80)}}),
    "prose": "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 150,
    "markdown": "# Title\n\n" + "\n\n".join(f"## Part {i}\n\n" + "word " * 80 for i in range(20)),
    "one long line": "".join(f"{i:08x}" for i in range(3000)),
}
BUDGETS = range(1, 81)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_every_budget_from_one_token_fits_and_names_the_handle_once_it_can(name: str, tmp_path: Path) -> None:
    raw = PAYLOADS[name]
    first_with_handle = None
    for budget in BUDGETS:
        policy = Policy(budget=budget, spill_dir=tmp_path)
        result = shape(raw, policy=policy)
        text = result.text
        assert 0 < count_tokens(text) <= budget, (budget, text)
        assert result.handle is not None, budget  # every result here is cut, so it is saved
        smallest = last_resort_texts(_is_json(raw), result.handle)
        if count_tokens(smallest[0]) <= budget:  # the answer naming only the handle would fit: the handle is named
            assert result.handle in text, (budget, text)
            first_with_handle = first_with_handle or budget
        elif result.handle not in text and count_tokens(smallest[1]) <= budget:
            assert NO_ROOM in text, (budget, text)  # no room for the handle, and it says so
    assert first_with_handle is not None and first_with_handle <= 40, first_with_handle


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_the_handle_in_the_smallest_answer_reads_the_result_back(name: str, tmp_path: Path) -> None:
    raw = PAYLOADS[name]
    handle = None
    for budget in BUDGETS:
        result = shape(raw, policy=Policy(budget=budget, spill_dir=tmp_path))
        if result.handle is not None and result.handle in result.text:
            handle = result.handle
            break
    assert handle is not None
    page = read(handle, policy=Policy(budget=2_000, spill_dir=tmp_path))
    assert count_tokens(page) <= 2_000 and "not found" not in page.lower()

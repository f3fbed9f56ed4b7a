"""Silent rewrites in the core (issue 31, "Silent rewrites and silent cuts"): each finding through ``hostshape.shape``
as a host calls it, asserting on the exact text the model reads (o200k) and on the way back (``read``)."""

from __future__ import annotations

import json
import math
import os
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hostshape import Policy, Rule, shape
from hostshape.input.lossless import minify
from hostshape.tokens import count_tokens
from hostshape.wayback.retrieve import read
from hostshape.wayback.spill import store_for

BIG = "12345678901234567.89"


def envelope(text: str) -> dict[str, Any]:
    return dict(json.loads(text)["_hostshape"])


def indented(value: Any) -> str:
    return json.dumps(value, indent=8)


def test_the_compact_form_keeps_every_number_as_written(tmp_path: Path) -> None:
    # indented, it is over the budget; compact, it fits: the compact form must be the same JSON, not a re-render
    text = indented({"amount": "AMOUNT", "items": [{"n": i} for i in range(60)]}).replace('"AMOUNT"', BIG)
    assert BIG in text
    policy = Policy(budget=count_tokens(text) * 2 // 3, spill_dir=tmp_path)
    res = shape(text, policy=policy, tool="t")
    assert count_tokens(res.text) <= policy.budget
    assert BIG in res.text and "e+16" not in res.text
    json.loads(res.text)


def test_a_repeated_key_is_never_dropped_without_a_note_and_a_handle(tmp_path: Path) -> None:
    text = (
        '{\n        "id": 1,\n        "id": 2,\n'
        + "".join(f'        "k{i}": {i},\n' for i in range(80))
        + '        "z": 0\n}'
    )
    policy = Policy(budget=count_tokens(text) * 2 // 3, spill_dir=tmp_path)
    res = shape(text, policy=policy, tool="t")
    assert count_tokens(res.text) <= policy.budget
    if '"id":1' in res.text.replace(" ", "") and '"id":2' in res.text.replace(" ", ""):
        return  # kept as written: nothing lost
    env = envelope(res.text)
    assert env["truncated"] is True and env["handle"]
    assert any("repeated" in n for n in env["notes"])
    assert read(env["handle"], policy=policy).count('"id"') == 2  # the way back has both


def test_a_number_rounded_by_shaping_is_named_and_the_original_is_saved(tmp_path: Path) -> None:
    records = [{"id": i, "amount": "AMOUNT", "note": "word " * 20} for i in range(300)]
    text = json.dumps(records).replace('"AMOUNT"', BIG)
    policy = Policy(budget=1000, spill_dir=tmp_path)
    res = shape(text, policy=policy, tool="t")
    env = envelope(res.text)
    assert count_tokens(res.text) <= 1000 and env["truncated"] is True
    assert any("precision" in n for n in env["notes"])
    assert res.path and BIG in Path(res.path).read_text()  # the saved original is the text as the tool sent it
    page = json.loads(read(env["handle"], policy=policy))  # the way back re-renders the values: it says so too
    assert any("precision" in n for n in page["_hostshape"]["notes"])


def test_a_jmespath_rule_that_filters_records_says_so(tmp_path: Path) -> None:
    records = [{"id": i, "state": "open" if i else "closed", "title": f"t{i}"} for i in range(300)]
    policy = Policy(budget=100_000, spill_dir=tmp_path, rules=(Rule(tool="t", jmespath="[?state=='open']"),))
    res = shape(json.dumps(records), policy=policy, tool="t")
    env = envelope(res.text)
    assert env["truncated"] is True, env
    assert any("299 of 300" in n for n in env["notes"]), env
    assert env["handle"]


@pytest.mark.parametrize("budget", [60, 1000])
def test_an_error_result_whose_text_is_json_comes_back_as_json(tmp_path: Path, budget: int) -> None:
    error = json.dumps({"error": {"code": 500, "message": "boom " * 3000, "trace": ["frame"] * 50}})
    policy = Policy(budget=budget, spill_dir=tmp_path)
    res = shape({"content": [{"type": "text", "text": error}], "isError": True}, policy=policy, tool="t")
    assert count_tokens(res.text) <= budget
    value = json.loads(res.text)  # valid JSON
    assert res.is_error and value["_hostshape"]["truncated"] is True
    page = json.loads(read(value["_hostshape"]["handle"], policy=policy))  # saved as JSON, read back as JSON
    assert budget < 100 or page["error"]["code"] == 500


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_json_bytes_are_decoded_and_saved_as_their_text(tmp_path: Path, codec: str) -> None:
    records = [{"id": i, "title": f"récord {i}", "body": "text " * 20} for i in range(300)]
    data = json.dumps(records, ensure_ascii=False).encode(codec)
    policy = Policy(budget=1000, spill_dir=tmp_path)
    res = shape(data, policy=policy, tool="t")
    env = envelope(res.text)
    assert count_tokens(res.text) <= 1000
    assert env["total"] == 300 and "binary" not in res.text
    assert "récord 0" in res.text
    saved = read(env["handle"], policy=policy)
    assert "récord" in saved and "binary omitted" not in saved


def test_a_3000_deep_result_wrapper_gets_a_shaped_answer(tmp_path: Path) -> None:
    value: Any = {"items": [{"id": i, "body": "text " * 30} for i in range(100)]}
    for _ in range(3000):
        value = {"result": value}
    policy = Policy(budget=1000, spill_dir=tmp_path)
    res = shape(value, policy=policy, tool="t")
    assert res.fault is None and res.strategy != "fault", res.text[:200]
    assert count_tokens(res.text) <= 1000
    assert envelope(res.text)["total"] == 100


def test_a_3000_deep_object_gets_a_shaped_answer(tmp_path: Path) -> None:
    value: Any = "leaf"
    for _ in range(3000):
        value = {"a": value}
    policy = Policy(budget=1000, spill_dir=tmp_path)
    res = shape(value, policy=policy, tool="t")
    assert count_tokens(res.text) <= 1000
    json.loads(res.text)


def test_a_reissued_handle_is_kept_and_the_oldest_evicted(tmp_path: Path) -> None:
    big = "x" * 40_000
    store = store_for(tmp_path / "spill", max_bytes=100_000)
    first = store.save("t", {"n": 1}, big + "1", is_json=False)
    old = time.time() - 100
    os.utime(first.path, (old, old))
    second = store.save("t", {"n": 2}, big + "2", is_json=False)
    os.utime(second.path, (old + 10, old + 10))
    again = store.save("t", {"n": 1}, big + "1", is_json=False)  # the first, reissued: now the newest
    assert again.handle == first.handle
    store.save("t", {"n": 3}, big + "3", is_json=False)  # over the bound: one must go
    assert store.load(first.handle) is not None, "the reissued handle was evicted"
    assert store.load(second.handle) is None, "the oldest handle was kept"


# -- property: numbers and repeated keys survive, or are named -------------------------------------------------------
NUMBER_TEXT = st.from_regex(r"\A-?(0|[1-9][0-9]{0,25})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?\Z")


def exact_as_double(literal: str) -> bool:
    value = json.loads(literal)
    if isinstance(value, int):
        return True
    return math.isfinite(value) and Decimal(literal) == Decimal(repr(value))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(numbers=st.lists(NUMBER_TEXT, min_size=1, max_size=8), repeat=st.booleans(), budget=st.sampled_from([60, 400]))
def test_numbers_and_keys_are_kept_or_named(
    tmp_path_factory: pytest.TempPathFactory, numbers: list[str], repeat: bool, budget: int
) -> None:
    members = [f'"n{i}": {n}' for i, n in enumerate(numbers)] + (['"n0": 0'] if repeat else [])
    text = "{\n" + ",\n".join("        " + m for m in members) + ',\n        "pad": "' + "p " * 60 + '"\n}'
    policy = Policy(budget=budget, spill_dir=tmp_path_factory.mktemp("spill"))
    res = shape(text, policy=policy, tool="t")
    assert count_tokens(res.text) <= budget
    if not res.changed:
        return
    value = json.loads(res.text)
    if res.strategy == "compact":  # the compact form is the original, minus the whitespace between tokens
        assert res.text == minify(text)
        return
    env = value["_hostshape"]
    assert env["handle"] and env["truncated"] is True
    if res.strategy == "minimal":
        return  # no value shown at all: nothing shown differs from the original
    notes = " ".join(env.get("notes", []))
    if repeat:
        assert "repeated" in notes, env
    elif not all(exact_as_double(n) for n in numbers):
        assert "precision" in notes, env

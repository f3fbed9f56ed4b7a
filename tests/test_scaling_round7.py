"""Issue 27, seventh round: the collector paused for a shaping, and the shrink's remembered member paths.

- ``collector.paused`` disables the cyclic collector for its body and sets it back as it was: enabled again after
  (also when the body raises), left disabled when the host disabled it; ``shape`` runs under it, so a host's
  collector is as it was after every call, a faulting one included;
- what ``shape`` builds while the collector is paused holds no cycle left behind: nothing for it to find after;
- ``shrink._child`` gives the path ``query_key`` makes for every key, remembered or not: keys that are equal but
  of other types (``1``, ``True``, ``"1"``) are not confused, and the memory it keeps is bounded.
"""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hostshape import Policy, shape
from hostshape.collector import paused
from hostshape.output.envelope import query_key
from hostshape.records import shrink


@pytest.fixture
def collector_on() -> Any:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def _records(n: int) -> str:
    return json.dumps(
        {
            "kind": "List",
            "items": [
                {"metadata": {"name": f"pod-{i}", "labels": {"app": "web", "tier": str(i % 3)}}, "status": {"n": i}}
                for i in range(n)
            ],
        }
    )


def test_paused_disables_the_collector_and_enables_it_after(collector_on: None) -> None:
    with paused():
        assert not gc.isenabled()
        with paused():  # an enclosing pause: the inner one changes nothing
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_paused_enables_the_collector_after_a_raise(collector_on: None) -> None:
    with pytest.raises(ValueError), paused():
        raise ValueError("boom")
    assert gc.isenabled()


def test_paused_leaves_a_collector_the_host_disabled_disabled(collector_on: None) -> None:
    gc.disable()
    with paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_shape_runs_with_the_collector_paused_and_sets_it_back(collector_on: None, monkeypatch: Any) -> None:
    from hostshape import pipeline

    seen: list[bool] = []
    real = pipeline._shape_once

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "_shape_once", spy)
    shaped = shape(_records(400), policy=Policy(budget=1500, spill=False))
    assert seen == [False]
    assert gc.isenabled()
    assert shaped.changed and json.loads(shaped.text)["_hostshape"]["total"] == 400


def test_shape_leaves_a_disabled_collector_disabled(collector_on: None) -> None:
    gc.disable()
    shape(_records(50), policy=Policy(budget=500, spill=False))
    assert not gc.isenabled()


def test_a_faulting_shape_sets_the_collector_back(collector_on: None, monkeypatch: Any) -> None:
    from hostshape import pipeline

    def broken(s: Any) -> Any:
        raise RuntimeError("a step failed")

    monkeypatch.setattr(pipeline, "STEPS", (pipeline.read, broken))
    shaped = shape(_records(400), policy=Policy(budget=800, spill=False))
    assert gc.isenabled()
    assert shaped.text  # answered, never raised


def test_a_shaping_leaves_no_cycle_for_the_collector(collector_on: None) -> None:
    text = _records(2000)
    policy = Policy(budget=2000, spill=False)
    shape(text, policy=policy)  # the first call builds the module-level caches
    gc.collect()
    shape(text, policy=policy)
    assert gc.collect() == 0


_keys = st.one_of(
    st.text(max_size=12),
    st.integers(-5, 5),
    st.booleans(),
    st.none(),
    st.sampled_from(["a.b", "2024", "név", "tags", "x y", "\ud800"]),
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["", "spec", "spec.containers[]", '"a.b"']), st.lists(_keys, min_size=1, max_size=8))
def test_child_paths_are_the_query_keys_remembered_or_not(path: str, keys: list[Any]) -> None:
    for key in keys + keys:  # the second time round, string keys come from memory
        step = query_key(str(key))
        assert shrink._child(path, key) == (f"{path}.{step}" if path else step)


def test_child_does_not_confuse_equal_keys_of_other_types() -> None:
    shrink._CHILDREN.clear()
    assert shrink._child("", "1") == '"1"'
    assert shrink._child("", 1) == '"1"'
    assert shrink._child("", True) == "True"
    assert shrink._child("", 1.0) == '"1.0"'
    assert all(type(key) is str for _, key in shrink._CHILDREN)


def test_child_memory_is_bounded() -> None:
    shrink._CHILDREN.clear()
    for i in range(3 * shrink._MOST_CHILDREN):
        assert shrink._child("p", f"k{i}") == f"p.k{i}"
    assert len(shrink._CHILDREN) <= shrink._MOST_CHILDREN

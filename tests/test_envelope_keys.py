"""One module writes the envelope: every key of ``_hostshape`` and every member beside it comes from
hostshape/output/envelope.py, and a fault answer uses the keys of a normal answer (issue 25)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hostshape import Policy, shape
from hostshape.output.envelope import INDEX, ITEMS, KEY, PREVIEW, VALUE

CORE = Path(__file__).resolve().parents[1] / "hostshape"


def test_no_module_but_the_envelope_writes_an_envelope_key() -> None:
    keys = "|".join(re.escape(k) for k in (KEY, PREVIEW, INDEX, "dropped"))
    writes = re.compile(rf"""\[\s*["']({keys})["']\s*\]\s*=|\{{\s*["']({keys})["']\s*:""")
    found = [
        f"{path.relative_to(CORE)}:{n}"
        for path in sorted(CORE.rglob("*.py"))
        if path.relative_to(CORE).parts[0] != "testing" and path.name != "envelope.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if writes.search(line) and "``" not in line  # a docstring quoting the envelope writes nothing
    ]
    assert found == []


def test_a_fault_answer_has_the_members_of_a_normal_preview_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = json.dumps({"k": [[["word " * 40] * 40] * 40]})  # no record list: shown as the start of its JSON text
    policy = Policy(budget=300, spill_dir=tmp_path / "spill", retrieval_tool="hostshape_read")
    normal = json.loads(shape(deep, policy=policy).text)

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("injected")

    monkeypatch.setattr("hostshape.pipeline.project", boom)
    fault = json.loads(shape(deep, policy=policy).text)
    assert set(fault) == {KEY, PREVIEW}
    assert set(fault) <= set(normal) | {PREVIEW} and set(fault[KEY]) <= set(normal[KEY]) | {"notes"}


def test_the_members_beside_the_envelope_are_named_by_the_envelope_module(tmp_path: Path) -> None:
    policy = Policy(budget=400, spill_dir=tmp_path)
    listed = json.loads(shape(json.dumps([{"id": i, "body": "word " * 60} for i in range(200)]), policy=policy).text)
    scalar = json.loads(shape(json.dumps("word " * 2000), policy=policy).text)
    assert {KEY, ITEMS, INDEX} <= set(listed) and next(iter(listed)) == KEY
    assert set(scalar) in ({KEY, VALUE}, {KEY, PREVIEW})

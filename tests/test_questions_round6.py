"""Round 6 of the question checks: an index spread over the list passes through its middle record, and long
identifiers sharing a start and end are listed with them stated once (``_index.shared``), decoded by the readers."""

from __future__ import annotations

import json

from bench.recall import Present
from hostshape.fit.records import _positions
from hostshape.records.affix import common_affixes, restored, shared_affixes, stripped


def test_a_spread_passes_through_the_middle_and_keeps_its_ends() -> None:
    for start, end, count in ((1, 100, 19), (0, 7, 4), (3, 1000, 50)):
        middle = (end - 1) // 2
        at = _positions(start, end, count, through=middle)
        assert middle in at and at[0] == start and at[-1] == end - 1
        assert at == sorted(set(at)) and len(at) == count
        even = _positions(start, end, count)
        assert sum(a != b for a, b in zip(at, even, strict=True)) <= 1  # only the nearest moved


def test_shared_affixes_are_stated_once_and_restored_losslessly() -> None:
    ids = [f"arn:aws:bedrock:us-east-1:123456789012:model-invocation-job/{x}" for x in ("ab12", "cd34", "ef56")]
    rows = [[i, v, None if i == 1 else "x"] for i, v in enumerate(ids)]
    columns = ["#", "jobArn", "other"]
    shared = shared_affixes(columns, rows)
    assert list(shared) == ["jobArn"]
    short = stripped(columns, rows, shared)
    assert [r[1] for r in short] == ["ab12", "cd34", "ef56"]
    assert restored(columns, short, {k: list(v) for k, v in shared.items()}) == rows


def test_short_or_unlike_values_are_left_as_they_are() -> None:
    assert shared_affixes(["id"], [["a1"], ["a2"]]) == {}
    assert shared_affixes(["id"], [["5a32d6e4-1"], ["e75ead52-2"]]) == {}
    assert common_affixes(["abcabc", "abc"]) == ("abc", "")  # no overlap in the shortest


def test_recall_reads_a_shared_column_as_a_model_told_the_format_would() -> None:
    out = json.dumps({"_index": {"fields": ["id"], "shared": {"id": ["https://h/x/", "/v"]}, "rows": [["1"], ["2"]]}})
    present = Present(out)
    assert present("https://h/x/1/v") and present("https://h/x/2/v")

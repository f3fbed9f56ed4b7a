"""Time series shaped as the model receives them with zero configuration (issue 27, seventh round); the payloads are
synthetic, of services the corpus does not hold, each named after the promise it checks: a series shrunk to fit
keeps its latest samples as well as its first, and times every series shares survive an envelope that crowds the
budget, stated once by their ends and step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hostshape.output.spacing import kept_once, told
from tests.answers import shaped_json_text as _shaped


def _graphite_render(targets: int, points: int) -> list[dict[str, Any]]:
    """A Graphite-like render answer: one object per target, its datapoints ``[value, unix time]``."""
    return [
        {
            "target": f"servers.web{i:02d}.loadavg.01",
            "tags": {"name": f"servers.web{i:02d}.loadavg.01"},
            "datapoints": [[round((i * 13 + k * 7) % 50 / 10, 1), 1767225600 + 10 * k] for k in range(points)],
        }
        for i in range(targets)
    ]


def _azure_like(series: int, points: int, *, even: bool = True) -> dict[str, Any]:
    """A metrics answer whose series each repeat the query's times beside their own values (parallel arrays)."""
    minutes = [k if even else k + k // 2 for k in range(points)]
    stamps = [f"2026-03-01T{m // 60:02d}:{m % 60:02d}:00Z" for m in minutes]
    return {
        "interval": "PT1M",
        "value": [
            {
                "name": f"requests-{i}",
                "resource": f"/subscriptions/0000/resourceGroups/rg/providers/Web/sites/app{i}",
                "timestamps": list(stamps),
                "values": [float((i + k) % 17) for k in range(points)],
            }
            for i in range(series)
        ],
    }


@pytest.mark.parametrize("budget", [900, 1200, 2000])
def test_a_series_shrunk_to_fit_keeps_its_latest_samples(tmp_path: Path, budget: int) -> None:
    raw = _graphite_render(10, 90)
    _, shown = _shaped(tmp_path, raw, budget)
    by_target = {t["target"]: t for t in raw}
    records = [r for r in shown["items"] if isinstance(r, dict)]
    assert records
    if budget == 1200:  # the budget at which the last record shown is shrunk to fit
        assert any("shrunk" in n for n in shown["_hostshape"]["notes"])
    for r in [*records, *(shown[k] for k in ("_middle", "_last") if k in shown)]:
        original = by_target[r["target"]]
        assert r["datapoints"][-1] == original["datapoints"][-1]  # the latest sample, whatever was cut before it
        assert r["datapoints"][0] == original["datapoints"][0]


def test_times_every_series_shares_survive_a_crowded_envelope(tmp_path: Path) -> None:
    raw = _azure_like(6, 120)
    for budget in (600, 1000, 1500):
        _, shown = _shaped(tmp_path, raw, budget)
        stated = shown["_hostshape"]["same"]["timestamps"]
        assert stated == "120 values from 2026-03-01T00:00:00Z to 2026-03-01T01:59:00Z, every 60 s"
        assert "not shown: timestamps" not in " ".join(shown["_hostshape"]["notes"])  # stated, not named as cut


def test_unevenly_spaced_shared_times_keep_their_ends(tmp_path: Path) -> None:
    raw = _azure_like(6, 120, even=False)
    _, shown = _shaped(tmp_path, raw, 1000)
    stated = shown["_hostshape"]["same"]["timestamps"]
    first, last = raw["value"][0]["timestamps"][0], raw["value"][0]["timestamps"][-1]
    assert stated == [first, "…118 more…", last]


def test_evenly_spaced_numbers_are_told_by_their_ends_and_step() -> None:
    assert told([100, 160, 220, "…7 more…", 700, 760]) == "12 values from 100 to 760, every 60"
    assert told([1.5, 2.0, 2.5, 3.0]) == "4 values from 1.5 to 3.0, every 0.5"
    assert told([100, 160, 220, "…7 more…", 700, 770]) == [100, "…10 more…", 770]  # the step breaks at the tail
    assert told("not a list") == "not a list"


def test_a_compacted_envelope_keeps_the_lists_stated_once_that_fit() -> None:
    same = {"unit": "Count", "source": ["agent"], "tags": ["a", "b", "c"], "long": list(range(0, 4000, 10))}
    assert kept_once(same, 120) == {"tags": ["a", "b", "c"], "long": "400 values from 0 to 3990, every 10"}
    assert kept_once(same, 30) == {"tags": ["a", "b", "c"]}  # whole when it fits; scalars and short lists are named

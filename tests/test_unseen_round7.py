"""Time series shaped as the model receives them with zero configuration (issue 27, seventh round); the payloads are
synthetic, of services the corpus does not hold, each named after the promise it checks: a series shrunk to fit
keeps its latest samples as well as its first, and times every series shares survive an envelope that crowds the
budget, stated once by their ends and step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

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

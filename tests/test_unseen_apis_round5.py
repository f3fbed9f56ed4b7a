"""Record lists shaped like the services of issue 27's sixth round (corpus/PROVENANCE.md, fifth round: NetBox, Cisco
ACI, Octopus Deploy, Equinix Metal, Docker Engine, Cloudflare, Planetary Computer's STAC API), as the model receives
them with zero configuration; the payloads are synthetic, each named after the promise it checks: repeated nested
objects (a device's type, with its manufacturer inside) collapse to their identifier only when the budget needs it,
and records three levels down under class-named wrappers are found and answered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench import tasks
from hostshape.tokens import count_tokens
from tests.answers import shaped_json_text as _shaped

MAKERS = ("Acme Networks", "Globex Systems", "Initech Power")


def _kind(i: int) -> dict[str, Any]:
    """One of four device kinds, each naming its maker in a nested object, as an inventory's references do."""
    k = i % 4
    maker = MAKERS[k % len(MAKERS)]
    return {
        "id": k + 1,
        "url": f"https://inventory.example.com/api/kinds/{k + 1}/",
        "maker": {"id": k % 3 + 1, "url": f"https://inventory.example.com/api/makers/{k % 3 + 1}/", "name": maker},
        "model": f"MODEL-{k}00X",
        "slug": f"model-{k}00x",
    }


def _devices(n: int) -> dict[str, Any]:
    results = [
        {
            "id": 100 + i,
            "name": f"rack{i // 4}-unit{i}",
            "kind": _kind(i),
            "position": i * 2,
            "serial": f"SN{i * 7919:08d}",
            "status": "active" if i % 5 else "planned",
            "created": f"2025-02-{1 + i % 28:02d}T10:00:00Z",
            "comments": f"installed in rack {i // 4} by the night shift, cabled to the spine pair",
        }
        for i in range(n)
    ]
    return {"count": n, "next": None, "previous": None, "results": results}


def _truth(raw: dict[str, Any], path: str) -> tasks.Truth:
    return tasks.Truth(raw["results"], "id", "name", None, (path,))


def test_repeated_objects_are_shown_whole_when_the_budget_has_room(tmp_path: Path) -> None:
    raw = _devices(12)
    text, shown = _shaped(tmp_path, raw, 3000)
    assert "objects collapsed" not in text
    assert all(isinstance(r["kind"], dict) for r in shown["results"])
    t = _truth(raw, "kind.maker.name")
    ok, asked = tasks.score(text, t)
    assert ok == asked


def test_repeated_objects_still_collapse_when_the_budget_is_tight(tmp_path: Path) -> None:
    raw = _devices(60)
    text, shown = _shaped(tmp_path, raw, 2000)
    assert shown["_hostshape"]["list"] == "results"
    assert "objects collapsed to their identifier: kind→slug" in text
    t = tasks.Truth(raw["results"], "id", "name", "status")
    ok, asked = tasks.score(text, t)
    assert ok >= asked - 2


def test_records_under_class_named_wrappers_are_answered(tmp_path: Path) -> None:
    """Records three levels down (``imdata[].<class>.attributes``, every value a string), as an XML-born API
    returns them: identified by a distinguished name, with a name and a state each."""
    nodes = [
        {
            "fabricNode": {
                "attributes": {
                    "dn": f"topology/pod-1/node-{100 + i}",
                    "name": f"leaf{100 + i}",
                    "state": "in-service" if i % 3 else "out-of-service",
                    "address": f"10.0.{i}.1",
                    "version": "n9000-16.0(2h)",
                    "modTs": f"2025-01-{1 + i % 28:02d}T08:00:00.000+00:00",
                    "descr": "a long description of the node's role in the fabric, " * 4,
                }
            }
        }
        for i in range(40)
    ]
    raw = {"totalCount": str(len(nodes)), "imdata": nodes}
    records = [n["fabricNode"]["attributes"] for n in nodes]
    for budget in (2000, 4000):
        text, _ = _shaped(tmp_path, raw, budget)
        t = tasks.Truth(
            [{"fabricNode": {"attributes": r}} for r in records],
            "fabricNode.attributes.dn",
            "fabricNode.attributes.name",
            "fabricNode.attributes.state",
        )
        ok, asked = tasks.score(text, t)
        assert ok >= asked - 3, (budget, ok, asked)


def _tasks(n: int) -> dict[str, Any]:
    """Deployment tasks: the failed ones carry an error message, the others an empty one, beside nulls that no task
    fills and a map of API links (dropped: the shrunk tasks leave room in the budget)."""
    items = [
        {
            "Id": f"Tasks-{900 + i}",
            "Description": f"Deploy release 1.{i}.0 to {'Staging' if i % 2 else 'Production'}",
            "State": "Failed" if i % 4 == 0 else "Success",
            "ErrorMessage": "One or more steps failed; see the task log." if i % 4 == 0 else "",
            "QueueTimeExpiry": None,
            "CompletedTime": f"2025-03-{1 + i:02d}T10:00:00Z",
            "QueueTime": f"2025-03-{1 + i:02d}T09:58:00Z",
            "ProjectId": f"Projects-{i % 3 + 1}",
            "Duration": f"{i + 2} seconds",
            "Links": {
                verb: f"https://deploy.example.com/api/spaces/Spaces-1/tasks/Tasks-{900 + i}/{verb.lower()}"
                for verb in ("Self", "Raw", "Rerun", "Cancel", "Details")
            },
        }
        for i in range(8)
    ]
    return {"TotalResults": len(items), "Items": items}


def test_an_empty_value_others_fill_is_shown_when_the_budget_has_room(tmp_path: Path) -> None:
    raw = _tasks(8)
    assert count_tokens(json.dumps(raw)) > 1500
    text, shown = _shaped(tmp_path, raw, 1500)
    assert shown["_hostshape"]["list"] == "Items"
    assert [r.get("ErrorMessage") for r in shown["Items"]] == [r["ErrorMessage"] for r in raw["Items"]]
    assert all("QueueTimeExpiry" not in r for r in shown["Items"])  # empty in every record: still left out
    assert "QueueTimeExpiry" in text  # ... and named as such


def test_empty_values_are_still_left_out_when_the_budget_is_tight(tmp_path: Path) -> None:
    raw = _tasks(8)
    for item in raw["Items"]:
        item["Notes"] = "a note long enough that the tasks do not fit a small budget whole, " * 5
    _, shown = _shaped(tmp_path, raw, 500)
    assert shown["_hostshape"]["truncated"] is True

"""Record lists shaped like the services of issue 27's eighth round, as the model receives them with zero
configuration; the payloads are synthetic (services the corpus does not hold), each named after the promise it
checks: findings grouped in a few lists of groups (a scanner's ``results[].findings``) are the records, never a
lighter list of many small items beside them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hostshape.records.locate import locate
from tests.answers import shaped_json_text as _shaped


def _dependency_scan(groups: int = 2, per_group: int = 12, steps: int = 30) -> dict[str, Any]:
    """A dependency audit: a build's many small steps beside the findings, grouped by the manifest they were found
    in; each finding a heavy record (an advisory's text and references) identified by advisory and package
    together (one advisory hits several packages)."""
    history = [{"step": i, "cmd": f"RUN make stage-{i}", "cached": i % 2 == 0} for i in range(steps)]
    results = []
    for g in range(groups):
        findings = []
        for i in range(per_group):
            advisory = f"GHSA-{g:02d}{i // 2:02d}-abcd-wxyz"
            findings.append(
                {
                    "advisory": advisory,
                    "package": f"lib-{g}-{i}",
                    "installed": f"1.{i}.0",
                    "fixed": f"1.{i}.3",
                    "severity": ("LOW", "MEDIUM", "HIGH")[i % 3],
                    "summary": f"Unbounded recursion in parser {i} of group {g} "
                    + "lets a crafted input exhaust the stack. " * 6,
                    "references": [f"https://advisories.example.org/{advisory}/{n}" for n in range(5)],
                }
            )
        results.append({"manifest": f"services/app-{g}/package-lock.json", "ecosystem": "npm", "findings": findings})
    return {"schema": 3, "build": {"image": "registry.example.org/app:1.0", "history": history}, "results": results}


def test_findings_grouped_by_manifest_are_the_records_not_a_lighter_list_beside_them() -> None:
    located = locate(_dependency_scan())
    assert located is not None
    assert located.path == ("results[].findings",)
    assert len(located.records) == 24
    assert {r["advisory"] for r in located.records[:2]} == {"GHSA-0000-abcd-wxyz"}


def test_every_grouped_finding_is_named_within_the_budget(tmp_path: Path) -> None:
    raw = _dependency_scan()
    text, shown = _shaped(tmp_path, raw, 2000)
    assert shown["_hostshape"]["list"].startswith("results")
    for group in raw["results"]:
        for finding in group["findings"]:
            assert f'"{finding["package"]}"' in text, finding["package"]


def test_a_list_of_one_small_child_per_group_is_weighed_as_it_stands() -> None:
    # Groups of one child each are the records themselves (each names its one part): the heavier sibling list wins.
    raw = {
        "count": 26,
        "owners": [{"id": f"o{i}", "parts": [{"sku": f"s{i}", "qty": i}]} for i in range(6)],
        "events": [{"id": f"e{i}", "text": "an event that happened " * 4} for i in range(20)],
    }
    located = locate(raw)
    assert located is not None
    assert located.path == ("events",)


def _permission_sets(n: int = 40) -> list[dict[str, Any]]:
    """An access service's permission sets, each naming the application it belongs to by an opaque id that few
    applications share among many sets, beside a per-set random etag."""
    apps = [f"{i:08x}-5c1e-4d7a-9b2f-{i * 7919:012x}" for i in range(1, 5)]
    return [
        {
            "id": f"ps-{i:04d}",
            "name": f"permission set {i}",
            "description": f"Grants the {i}th bundle of scopes to the members of its application. " * 3,
            "applicationId": apps[i % len(apps)],
            "etag": f"{(i * 2654435761) % 2**64:016x}{(i * 40503) % 2**32:08x}",
            "scopes": [f"scope:{i}:{k}" for k in range(4)],
        }
        for i in range(n)
    ]


def test_an_opaque_id_records_share_is_kept_as_the_reference_it_is(tmp_path: Path) -> None:
    raw = _permission_sets()
    text, shown = _shaped(tmp_path, raw, 2000)
    omitted = shown["_hostshape"].get("omitted", [])
    assert "applicationId" not in omitted  # which application each set belongs to: a reference, not a token
    assert "etag" in omitted  # a token each record carries for itself is noise
    assert all(f'"{r["id"]}"' in text for r in raw)

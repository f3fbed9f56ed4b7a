"""Record lists shaped like the services of issue 27's fourth round (corpus/PROVENANCE.md: GitLab, Bitbucket, Google
Service Usage, Terraform Registry, Gradle), as the model receives them with zero configuration; the payloads are
synthetic, each named after the promise it checks: a wrapper's identifier keeps its name when the object it wraps
has a member of the same name, a value every record shares is stated once even when it is an opaque hash, a list of
versions each holding the same few parts stays a list of versions, a compact date-time is a date, not a token, and
a listing of every record takes its widest columns before the room left shows a shrunk first record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hostshape
from hostshape import Policy
from hostshape.records.structure import is_opaque
from hostshape.tokens import count_tokens

LONG = "a description long enough that the records do not fit the budget whole, " * 6


def _shaped(tmp_path: Path, raw: Any, budget: int) -> dict[str, Any]:
    text = hostshape.shape(json.dumps(raw), policy=Policy(budget=budget, spill_dir=tmp_path)).text
    assert count_tokens(text) <= budget
    shown: dict[str, Any] = json.loads(text)
    return shown


def _records(shown: dict[str, Any]) -> list[dict[str, Any]]:
    """The records shown whole (the list the envelope names), with ``_last``."""
    where = shown["_hostshape"]["list"]
    out = [r for r in shown.get(where, []) if isinstance(r, dict)]
    return out + ([shown["_last"]] if isinstance(shown.get("_last"), dict) else [])


def _services(n: int) -> dict[str, Any]:
    """Each record wraps one big object (a service's config) that has a ``name`` of its own, shorter than the
    wrapper's resource name."""
    return {
        "services": [
            {
                "name": f"projects/demo/services/api{i}.example.com",
                "config": {"name": f"api{i}.example.com", "title": f"API number {i}", "documentation": LONG},
                "state": "ENABLED" if i % 3 else "DISABLED",
            }
            for i in range(n)
        ]
    }


@pytest.mark.parametrize("budget", [1000, 2000])
def test_an_unwrapped_record_keeps_the_wrappers_names_and_shows_the_objects_own_under_its_path(
    tmp_path: Path, budget: int
) -> None:
    doc = _services(30)
    shown = _shaped(tmp_path, doc, budget)
    records = _records(shown)
    assert records
    by_name = {r["services"]["name"] if "services" in r else r["name"]: r for r in records}
    for name, record in by_name.items():
        i = int(name.split("/api")[1].split(".")[0])
        assert name == f"projects/demo/services/api{i}.example.com"  # the wrapper's member, under its own name
        assert record["config.name"] == f"api{i}.example.com"  # the object's, under its path in the record
        assert record["state"] == doc["services"][i]["state"] or shown["_hostshape"].get("same", {}).get("state")
    assert any("config's name shown as config.name" in n for n in shown["_hostshape"]["notes"])


def _listing(commit: str) -> dict[str, Any]:
    """A directory listing at one commit: every entry names the same commit hash, beside a per-entry link."""
    return {
        "pagelen": 100,
        "values": [
            {
                "path": f"dir{i // 10}/file{i}.txt",
                "type": "commit_file",
                "size": 100 * i,
                "commit": {
                    "hash": commit,
                    "links": {"self": {"href": f"https://api.example.com/2.0/repos/x/commit/{commit}?e={i}"}},
                },
                "note": LONG[: 40 + i],
            }
            for i in range(40)
        ],
    }


@pytest.mark.parametrize("budget", [2000, 4000])
def test_an_opaque_value_every_record_shares_is_stated_once_not_dropped(tmp_path: Path, budget: int) -> None:
    commit = "0db600938b1772915dff5f88a1ad07b5affbc48b"
    shown = _shaped(tmp_path, _listing(commit), budget)
    assert commit in json.dumps(shown)
    assert "hash" not in shown["_hostshape"].get("omitted", [])


def test_opaque_values_that_differ_per_record_are_still_dropped(tmp_path: Path) -> None:
    doc = _listing("unused")
    for i, entry in enumerate(doc["values"]):
        entry["commit"]["hash"] = f"{i:040x}"
    shown = _shaped(tmp_path, doc, 2000)
    assert "hash" in shown["_hostshape"].get("omitted", [])


def _versions(n: int, parts: int) -> dict[str, Any]:
    """A module's versions, each holding the same few submodules (their paths repeat in every version)."""
    return {
        "modules": [
            {
                "source": "example/module/cloud",
                "versions": [
                    {
                        "version": f"0.{v // 10}.{v % 10}",
                        "root": {"providers": [{"name": "cloud", "version": ""}], "dependencies": []},
                        "submodules": [
                            {
                                "path": f"modules/part-{p}",
                                "dependencies": [],
                                "providers": [{"name": "cloud", "version": ""}, {"name": "template", "version": ""}],
                            }
                            for p in range(parts)
                        ],
                    }
                    for v in range(n)
                ],
            }
        ]
    }


@pytest.mark.parametrize("budget", [1000, 2000])
def test_versions_holding_the_same_few_parts_stay_the_records(tmp_path: Path, budget: int) -> None:
    shown = _shaped(tmp_path, _versions(24, 4), budget)
    env = shown["_hostshape"]
    assert env["total"] == 24  # the versions, not their 96 submodules
    assert not any("submodules[] flattened" in n for n in env["notes"])
    text = json.dumps(shown)
    assert all(f'"0.{v // 10}.{v % 10}"' in text for v in range(24))


def test_children_named_across_their_parents_are_still_flattened(tmp_path: Path) -> None:
    doc = _versions(24, 4)
    for v, version in enumerate(doc["modules"][0]["versions"]):
        for p, part in enumerate(version["submodules"]):
            part["path"] = f"modules/v{v}-part-{p}"  # each part its own, named across the list
            part["readme"] = LONG
    shown = _shaped(tmp_path, doc, 2000)
    assert shown["_hostshape"]["total"] == 96


@pytest.mark.parametrize("value", ["20250819013317+0000", "20090720T085013Z", "20191030160321-0530"])
def test_a_basic_format_date_time_is_not_an_opaque_token(value: str) -> None:
    assert not is_opaque(value)


def test_a_compact_build_time_is_kept_beside_the_version(tmp_path: Path) -> None:
    records = [
        {
            "version": f"8.{i}",
            "buildTime": f"2024{1 + i % 12:02d}{1 + i % 28:02d}1{i % 10}0321+0000",
            "checksum": f"{i:064x}",
            "notes": LONG,
        }
        for i in range(60)
    ]
    shown = _shaped(tmp_path, records, 2000)
    assert "buildTime" not in shown["_hostshape"].get("omitted", [])
    assert records[0]["buildTime"] in json.dumps(shown)


def _releases(n: int) -> list[dict[str, Any]]:
    """A few releases, each larger than the budget (the files of four components), with short varying members."""

    def files(i: int, part: str) -> list[dict[str, str]]:
        return [
            {
                "name": f"{part}-{os}-{arch}.tar.gz",
                "rid": f"{os}-{arch}",
                "url": f"https://dl.example.com/pr/{i:08x}-{k:04x}-{arch}/{part}-9.0.0-{os}-{arch}.tar.gz",
                "hash": f"{i:04x}{k:0124x}",
            }
            for k, (os, arch) in enumerate((o, a) for o in ("linux", "osx", "win") for a in ("x64", "arm64", "x86"))
        ]

    return [
        {
            "release-date": f"2024-{1 + i:02d}-1{i}",
            "release-version": f"9.0.0-preview.{n - i}",
            "notes": f"https://example.com/notes/9.0/preview-{n - i}.md",
            **{
                part: {"version": f"9.0.{k}00-preview.{n - i}.24{i:03d}.{i}", "files": files(i, part)}
                for k, part in enumerate(("runtime", "sdk", "aspnetcore", "desktop"))
            },
        }
        for i in range(n)
    ]


def test_a_listing_of_every_record_takes_its_widest_columns_before_a_shrunk_first_record(tmp_path: Path) -> None:
    records = _releases(8)
    shown = _shaped(tmp_path, {"channel": "9.0", "releases": records}, 2000)
    fields = _index(shown)["fields"]
    assert "release-version" in fields and "release-date" in fields
    listed = {row[fields.index("release-version")]: row for row in _index(shown)["rows"]}
    for r in records[1:]:
        assert listed[r["release-version"]][fields.index("release-date")] == r["release-date"]


def _index(shown: dict[str, Any]) -> dict[str, Any]:
    index: dict[str, Any] = shown.get("_index") or {}
    return index

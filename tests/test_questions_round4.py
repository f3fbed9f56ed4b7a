"""Answers from the first answer, round 4 (issue 27): the index's columns say more per token (a column that only
shortens another is left out, one that makes another more precise is kept; a sparse column of repeated text is no
title), and a link dropped beside the records under the name of a member the records derive is named apart, so
``omitted`` never reads as the records' derived member. Synthetic payloads of services not in the corpus."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hostshape import Policy, shape
from hostshape.records import structure
from hostshape.tokens import count_tokens
from tests.answers import shaped_json as _shaped


def _firmware(n: int = 60) -> list[dict[str, Any]]:
    """Firmware builds of a router vendor: the release tag, the build's full version (the tag and a build number),
    its short display form (the start of the full version), a date, a size."""
    return [
        {
            "tag": f"4.{i // 10}.{i % 10}",
            "build": {
                "version": f"4.{i // 10}.{i % 10}.{20240 + 7 * i}",
                "display": f"4.{i // 10}.{i % 10}.{20240 + 7 * i}"[:5],
            },
            "released": f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}",
            "sizeKb": 30_000 + 17 * i,
            "notes": f"Build {i}: fixes for the {['radio', 'vpn', 'dhcp', 'ui'][i % 4]} stack. " * 12,
        }
        for i in range(n)
    ]


def test_a_column_that_makes_a_shown_one_more_precise_is_an_index_column_and_its_short_form_is_not() -> None:
    records = _firmware()
    wide = structure.index_columns(records, count_tokens)[0]
    assert wide[0] == "tag"
    assert "build.version" in wide  # the tag and a build number: says more than the tag
    assert "build.display" not in wide  # the start of the full version: says nothing it does not


def test_a_list_of_values_holding_the_shown_one_is_still_a_repeat() -> None:
    records = [
        {"key": f"k{i:03d}", "keys": f"k{i:03d},k{i + 1:03d}", "image": f"img/k{i:03d}.tar", "n": i} for i in range(30)
    ]
    assert structure._repeats(records, "keys", "key")
    assert structure._repeats(records, "image", "key")  # the key inside a longer name
    series = [{"sku": f"lamp{i:03d}x", "family": "lamp", "kind": f"lamp-{i % 3}"} for i in range(30)]
    assert not structure._repeats(series, "family", "sku")  # a start, but not up to a separator: another word
    assert structure._repeats([{"a": f"k-{i}", "b": f"k-{i}-x"} for i in range(30)], "a", "b")
    assert not structure._repeats(records, "n", "key")


def test_the_build_number_column_reaches_the_first_answer_where_the_room_holds_it(tmp_path) -> None:
    records = _firmware(100)
    for budget in (4000, 8000):
        shown = _shaped({"builds": records}, budget, tmp_path)
        fields = shown["_index"]["fields"]
        assert "build.version" in fields and "build.display" not in fields, fields


def _tickets(n: int = 40) -> list[dict[str, Any]]:
    """Help-desk tickets: a code, a subject (distinct), and an escalation text that three tickets in ten have: one
    text in five of those twelve, seven others once (two thirds distinct: as distinct as a title may be)."""
    texts = ["Escalated to the vendor desk (case open)"] * 5 + [f"Escalated to facilities, floor {f}" for f in range(7)]
    escalated = iter(texts)
    return [
        {
            "code": f"HD-{1000 + i}",
            "subject": f"Printer {i} on floor {i % 5} jams on duplex pages",
            "escalation": next(escalated) if i % 10 in (0, 3, 6) else None,
            "opened": f"2025-03-{1 + i % 28:02d}",
        }
        for i in range(n)
    ]


def test_a_sparse_column_of_repeated_text_is_no_title() -> None:
    records = [{k: v for k, v in r.items() if k != "subject"} for r in _tickets()]
    assert structure.title_field(records, skip=["code"]) is None  # a group's label, not a name
    assert structure.title_field(_tickets(), skip=["code"]) == "subject"


def test_a_sparse_title_that_names_each_record_it_is_in_is_still_a_title() -> None:
    def resolution(i: int) -> str | None:  # a third of the tickets; a few share one (a known fix), most their own
        return None if i % 3 else "Replaced the fuser unit" if i % 18 == 0 else f"Cleared a jam in printer {i}"

    records = [{"code": f"HD-{1000 + i}", "resolution": resolution(i)} for i in range(40)]
    assert structure.title_field(records, skip=["code"]) == "resolution"


def _greenhouse() -> dict[str, Any]:
    """A greenhouse API's aggregated plant list: plants grouped by house, the same labels in each, each plant's link
    built from its house and label; the list's own link beside them under the same member name."""
    note = "Watered twice a week, kept out of direct light, repotted each spring. " * 3
    return {
        "kind": "greenhouse#plantList",
        "selfLink": "https://api.greenhouse.example.net/v3/aggregated/plants",
        "items": {
            f"houses/h-{g}": {
                "plants": [
                    {
                        "label": f"fern-{i:02d}",
                        "heightCm": 3 * i,
                        "selfLink": f"https://api.greenhouse.example.net/v3/houses/h-{g}/plants/fern-{i:02d}",
                        "note": f"{i} {note}",
                    }
                    for i in range(40)
                ]
            }
            for g in range(3)
        },
    }


@pytest.mark.parametrize("budget", [2000, 4000, 8000])
def test_a_link_beside_the_records_named_as_their_derived_member_is_named_by_its_place(tmp_path, budget) -> None:
    shown = _shaped(_greenhouse(), budget, tmp_path)
    env = shown["_hostshape"]
    assert env["derived"] == {"selfLink": "https://api.greenhouse.example.net/v3/{items:key}/plants/{label}"}
    assert "selfLink" not in env.get("omitted", [])  # would read as the records' member, which is derived
    assert "links beside the records dropped: selfLink" in env["notes"]  # the cut is still named
    assert "selfLink" not in shown and env["truncated"] is True


def test_a_link_beside_the_records_with_a_name_they_do_not_derive_stays_in_omitted(tmp_path) -> None:
    doc = _greenhouse()
    doc["listLink"] = doc.pop("selfLink")
    env = _shaped(doc, 4000, tmp_path)["_hostshape"]
    assert "listLink" in env["omitted"]
    assert not any(n.startswith("links beside the records") for n in env["notes"])


@pytest.mark.parametrize("budget", [60, 150, 400])
def test_small_budgets_hold_with_the_link_beside_the_records_named_apart(tmp_path, budget) -> None:
    text = shape(json.dumps(_greenhouse()), policy=Policy(budget=budget, spill_dir=tmp_path)).text
    assert count_tokens(text) <= budget
    if text.startswith("{"):
        json.loads(text)

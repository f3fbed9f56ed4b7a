"""Derived members (hostshape.records.derived): a string member that each record's own values rebuild exactly is
stated once in the envelope's ``derived`` as a template, instead of in every record or dropped as a link; the
model (or a reader told the format) rebuilds it from any record or index row that holds its parts."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hostshape import Policy, shape
from hostshape.records.derived import checked, learn, parse, rebuilt, template_text, unchecked
from hostshape.records.locate import locate
from hostshape.tokens import count_tokens
from hostshape.wayback.retrieve import read

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
PAYLOADS = ROOT / "hostshape" / "examples" / "payloads"
NOTE = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. " * 3


def _shaped(tmp_path: Path, value: Any, budget: int) -> tuple[dict[str, Any], str]:
    raw = value if isinstance(value, str) else json.dumps(value)
    result = shape(raw, policy=Policy(budget=budget, spill_dir=tmp_path / "spill"), tool="t")
    assert count_tokens(result.text) <= budget  # the envelope, derived templates included, is within the budget
    return json.loads(result.text), result.text


def _views(shown: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every record the output shows, as an object: records, table rows and index rows (fields zipped)."""
    stack: list[Any] = [v for k, v in shown.items() if k != "_hostshape"]
    while stack:
        node = stack.pop()
        if isinstance(node, dict) and isinstance(node.get("fields"), list) and isinstance(node.get("rows"), list):
            yield from (dict(zip(node["fields"], row, strict=False)) for row in node["rows"])
        elif isinstance(node, dict):
            yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def _rebuilt_values(shown: dict[str, Any], member: str) -> list[str]:
    env = shown["_hostshape"]
    templates, same = env.get("derived", {}), env.get("same", {})
    out = []
    for view in _views(shown):
        if member not in view:
            value = rebuilt({**same, **view}, templates).get(member)
            if value is not None:
                out.append(value)
    return out


def _regional_volumes(differ_at: int | None = None) -> dict[str, Any]:
    """Volumes grouped by region, with the same labels in each: only the link, built from the group's key and
    the label, is unique on its own (the shape of test_zero_config's C2)."""
    doc = {
        "items": {
            f"regions/eu-{g}": {
                "volumes": [
                    {
                        "label": f"vol-{i:02d}",
                        "sizeGb": 10 * i,
                        "selfLink": f"https://cloud.example.com/v1/regions/eu-{g}/volumes/vol-{i:02d}",
                        "note": f"{i} {NOTE}",
                    }
                    for i in range(40)
                ]
            }
            for g in range(3)
        }
    }
    if differ_at is not None:
        doc["items"]["regions/eu-1"]["volumes"][differ_at]["selfLink"] = "https://cloud.example.com/v1/moved/x"
    return doc


def _links(doc: dict[str, Any]) -> list[str]:
    return [v["selfLink"] for group in doc["items"].values() for v in group["volumes"]]


def test_a_link_built_from_two_members_is_shown_once_as_a_template_and_rebuilds_every_record(tmp_path) -> None:
    doc = _regional_volumes()
    shown, text = _shaped(tmp_path, doc, 4000)
    env = shown["_hostshape"]
    assert env["derived"] == {"selfLink": "https://cloud.example.com/v1/{items:key}/volumes/{label}"}
    assert "selfLink" not in env.get("omitted", []) and "cloud.example.com/v1/regions/eu-1" not in text
    links = _rebuilt_values(shown, "selfLink")
    assert set(links) == set(_links(doc))  # every record, each exactly its own link


@pytest.mark.parametrize("budget", [2000, 4000, 8000])
def test_every_machine_type_link_rebuilds_exactly_from_the_records_and_index_rows_shown(tmp_path, budget) -> None:
    """GCE's aggregated machine types: the link is the only unique member; it is rebuilt from each record's zone
    group and name (the index's two columns), so every record listed or shown names its link."""
    raw = (CORPUS / "gcp_compute_aggregated_machine_types.json").read_text(encoding="utf-8")
    shown, _ = _shaped(tmp_path, raw, budget)
    template = shown["_hostshape"]["derived"]["selfLink"]
    assert template == "https://www.googleapis.com/compute/v1/projects/project_name/{items:key}/machineTypes/{name}"
    originals = {r["selfLink"] for r in locate(json.loads(raw)).records}  # type: ignore[union-attr]
    assert len(originals) == 100 and set(_rebuilt_values(shown, "selfLink")) == originals


def test_a_member_that_differs_in_one_record_is_not_derived(tmp_path) -> None:
    shown, text = _shaped(tmp_path, _regional_volumes(differ_at=37), 4000)
    env = shown["_hostshape"]
    assert "selfLink" not in env.get("derived", {})
    assert "selfLink" in env.get("omitted", []) or "v1/moved/x" in text  # dropped and named, or shown


def test_text_a_model_reads_stays_in_the_records(tmp_path) -> None:
    """A title built from the number (``issue 7 about the parser``) is text, not a machine string: shown as is."""
    records = [{"id": i, "title": f"issue {i} about the parser", "body": "text " * 20} for i in range(300)]
    shown, text = _shaped(tmp_path, records, 4000)
    assert "derived" not in shown["_hostshape"] and "issue 0 about the parser" in text


def test_a_template_is_filled_only_by_values_the_answer_shows(tmp_path) -> None:
    """A link built from a member of an object the shrink collapses (``owner.login`` of an owner shown by its
    login only) or drops would rebuild from nothing shown: whatever is derived rebuilds exactly from what is."""
    owners = [{"login": f"user{k}", "id": 9000 + k, "type": "User", "site": f"https://u{k}.example"} for k in range(4)]
    records = [
        {
            "number": i,
            "owner": owners[i % 4],
            "page": f"https://example.com/{owners[i % 4]['login']}/posts/{i}",
            "body": f"{i} {NOTE}",
        }
        for i in range(60)
    ]
    shown, _ = _shaped(tmp_path, {"posts": records}, 4000)
    by_number = {r["number"]: r["page"] for r in records}
    env = shown["_hostshape"]
    assert "owner.login" not in json.dumps(env.get("derived", {}))  # owner is shown as its login, not an object
    for view in _views(shown):
        if "number" in view and "page" not in view and "page" in env.get("derived", {}):
            assert rebuilt({**env.get("same", {}), **view}, env["derived"])["page"] == by_number[view["number"]]


def test_names_holding_dots_or_braces_are_quoted_and_literal_braces_doubled() -> None:
    pieces = ("https://x.example/", ("a.b",), "/", ("meta", 'q"x}'), "/labels{/name}")
    text = template_text(pieces)
    assert text == 'https://x.example/{"a.b"}/{meta."q\\"x}"}/labels{{/name}}'
    template = parse(text)
    assert template is not None and template.pieces == pieces
    record = {"a.b": "one", "meta": {'q"x}': 7}}
    assert template.render(record) == "https://x.example/one/7/labels{/name}"
    assert rebuilt(record, {"link": text})["link"] == "https://x.example/one/7/labels{/name}"
    assert parse("{unclosed") is None and parse("a}b") is None


def test_a_dotted_name_and_literal_braces_round_trip_through_the_envelope(tmp_path) -> None:
    doc = {
        "items": {
            f"zones/z{g}": {
                "things": [
                    {
                        "res.name": f"item-{i}",
                        "ref": f"https://shop.example/v1/zones/z{g}/items/item-{i}{{?draft}}",
                        "text": f"{i} {NOTE}",
                    }
                    for i in range(30)
                ]
            }
            for g in range(3)
        }
    }
    shown, _ = _shaped(tmp_path, doc, 4000)
    template = shown["_hostshape"]["derived"]["ref"]
    assert template == 'https://shop.example/v1/{items:key}/items/{"res.name"}{{?draft}}'
    originals = [r["ref"] for group in doc["items"].values() for r in group["things"]]
    assert set(_rebuilt_values(shown, "ref")) == set(originals)


def test_a_link_nothing_needs_stays_a_name_in_omitted(tmp_path) -> None:
    """A dropped link costs its name only; a template is added for it only when it names the records and nothing
    shown does: with a unique number in every record, API links stay omitted."""
    records = [
        {"number": i, "url": f"https://api.example.com/repos/o/r/issues/{i}", "title": f"t{i}", "body": NOTE}
        for i in range(60)
    ]
    shown, _ = _shaped(tmp_path, records, 2000)
    env = shown["_hostshape"]
    assert "url" not in env.get("derived", {}) and "url" in env["omitted"]


@pytest.mark.parametrize("budget", [2000, 4000, 8000])
def test_derived_templates_cost_less_than_the_values_they_replace(tmp_path, budget) -> None:
    """GitHub pull requests: html_url, diff_url and patch_url, each built from the number (the latter two from
    html_url), are stated once for fewer tokens than their values in the records shown."""
    raw = (PAYLOADS / "gh_pulls_list.json").read_text(encoding="utf-8")
    shown, _ = _shaped(tmp_path, raw, budget)
    env = shown["_hostshape"]
    derived = env["derived"]
    assert derived["diff_url"] == "{html_url}.diff" and derived["patch_url"] == "{html_url}.patch"
    originals = json.loads(raw)[: env["returned"]]
    replaced = [{name: r[name] for name in derived} for r in originals]
    assert count_tokens(json.dumps(derived)) < count_tokens(json.dumps(replaced))


def test_the_saved_original_answers_a_query_with_the_real_values(tmp_path) -> None:
    raw = (CORPUS / "gcp_compute_aggregated_machine_types.json").read_text(encoding="utf-8")
    policy = Policy(budget=2000, spill_dir=tmp_path / "spill", retrieval_tool="hostshape_read")
    result = shape(raw, policy=policy, tool="t")
    page = json.loads(read(result.handle or "", query="items.*.machineTypes[].selfLink[]", policy=policy))
    (links,) = [v for k, v in page.items() if k != "_hostshape"]
    originals = [r["selfLink"] for group in json.loads(raw)["items"].values() for r in group["machineTypes"]]
    assert links[:10] == originals[:10] and all(link.startswith("https://www.googleapis.com/") for link in links)


def test_a_hostile_long_string_in_a_derivable_member_is_not_derived_and_stays_fast(tmp_path) -> None:
    doc = _regional_volumes()
    doc["items"]["regions/eu-2"]["volumes"][20]["selfLink"] = "https://cloud.example.com/" + "x" * 50_000_000
    started = time.process_time()
    shown, _ = _shaped(tmp_path, doc, 2000)
    spent = time.process_time() - started
    assert "selfLink" not in shown["_hostshape"].get("derived", {})
    assert spent < 20, f"{spent:.1f} s of CPU"


def test_records_of_five_thousand_derivable_members_are_shaped_within_the_budget_in_bounded_time(tmp_path) -> None:
    records = [{"id": j, **{f"m{k}": f"value-{j}-number-{k}" for k in range(5000)}} for j in range(9)]
    started = time.process_time()
    shown, _ = _shaped(tmp_path, {"items": records}, 2000)
    spent = time.process_time() - started
    derived = shown["_hostshape"].get("derived", {})
    assert derived.get("m1") == "value-{id}-number-1" and len(json.dumps(derived)) <= 600  # a bounded envelope
    assert spent < 10, f"{spent:.1f} s of CPU"


@pytest.mark.parametrize("budget", [300, 600, 1000, 1500])
def test_small_budgets_hold_with_the_derived_templates_in_the_envelope(tmp_path, budget) -> None:
    for raw in (
        (CORPUS / "gcp_compute_aggregated_machine_types.json").read_text(encoding="utf-8"),
        (PAYLOADS / "gh_pulls_list.json").read_text(encoding="utf-8"),
    ):
        result = shape(raw, policy=Policy(budget=budget, spill_dir=tmp_path / "spill"))
        assert count_tokens(result.text) <= budget
        json.loads(result.text)


def test_a_long_list_is_checked_on_a_spread_that_includes_its_last_record_and_says_so(tmp_path) -> None:
    records = [
        {"sku": f"s{i % 40}", "zone": f"z{i // 40}", "href": f"https://shop.example/z{i // 40}/s{i % 40}"}
        for i in range(6000)
    ]
    learnt = learn(records, lambda path, value: True, exclude=frozenset({"sku"}))
    assert [t.text for t in checked(learnt, records).values()] == ["https://shop.example/{zone}/{sku}"]
    records[-1]["href"] = "https://elsewhere.example/moved"
    assert checked(learnt, records) == {}
    assert unchecked(6000) == 1000
    records[-1]["href"] = "https://shop.example/z149/s39"
    doc = {"items": {f"zone/z{g}": {"skus": records[g * 40 : g * 40 + 40]} for g in range(150)}}
    shown, _ = _shaped(tmp_path, doc, 2000)
    notes = shown["_hostshape"]["notes"]
    assert shown["_hostshape"]["derived"] == {"href": "https://shop.example/{zone}/{sku}"}
    assert any("derived checked on 5,000 of 6,000 records" in n for n in notes)

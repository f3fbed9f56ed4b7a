"""The core's promises, checked on every recorded payload at the budgets users pick most."""

from __future__ import annotations

import json

import pytest

from hostshape import Policy, Rule, shape
from hostshape.examples import payload_names, payload_text
from hostshape.output.columns import as_records
from hostshape.records.locate import find_records
from hostshape.records.structure import identifier
from hostshape.tokens import count_tokens

BUDGETS = (2000, 4000, 8000)
JSON_FILES = [n for n in payload_names() if n.endswith(".json")]


def _policy(tmp_path, budget: int, **kw) -> Policy:  # type: ignore[no-untyped-def]
    return Policy(budget=budget, spill_dir=tmp_path / "spill", **kw)


@pytest.mark.parametrize("budget", BUDGETS)
@pytest.mark.parametrize("name", payload_names())
def test_every_output_fits_and_stays_json_and_is_deterministic(tmp_path, name: str, budget: int) -> None:
    policy = _policy(tmp_path, budget)
    first = shape(payload_text(name), policy=policy, tool=name)
    second = shape(payload_text(name), policy=policy, tool=name)
    assert count_tokens(first.text) <= budget
    assert first.text == second.text
    if name.endswith(".json"):
        json.loads(first.text)


@pytest.mark.parametrize("budget", BUDGETS)
@pytest.mark.parametrize("name", JSON_FILES)
def test_every_record_identifier_survives(tmp_path, name: str, budget: int) -> None:
    original = json.loads(payload_text(name))
    found = find_records(original)
    if found is None:  # a single object (file contents): no records to keep
        return
    records = found[1]
    key = identifier(records)
    text = shape(payload_text(name), policy=_policy(tmp_path, budget), tool=name).text
    if key is None or len(records) < 2:
        return
    shown = json.loads(text)
    index = shown.get("_index", {}) if isinstance(shown, dict) else {}
    at = 1 if index.get("fields", [])[:1] == ["#"] else 0  # an index spread over the list: each row's position first
    kept = {r.get(key) for r in _records_in(shown)} | {row[at] for row in index.get("rows", [])}
    for whole in ("_middle", "_last"):  # the list's middle and last records, shown whole
        if isinstance(shown, dict) and isinstance(shown.get(whole), dict):
            kept.add(shown[whole].get(key))
    wanted = {r.get(key) for r in records}
    recall = len(wanted & kept) / len(wanted)
    assert recall >= (0.98 if budget >= 4000 else 0.5), (name, budget, recall)


def _records_in(shown: dict | list) -> list[dict]:  # type: ignore[type-arg]
    if isinstance(shown, list):
        return shown
    found = find_records(
        {k: as_records(v) for k, v in shown.items() if k not in ("_hostshape", "_index", "_middle", "_last")}
    )
    return [r for r in (found[1] if found else []) if isinstance(r, dict)]


def test_pull_requests_come_back_whole_with_zero_configuration(tmp_path) -> None:
    raw = payload_text("gh_pulls_list.json")
    assert count_tokens(raw) == 54552
    result = shape(raw, policy=_policy(tmp_path, 4000), tool="list_pull_requests")
    assert result.tokens < 4000
    shown = json.loads(result.text)
    pulls, same = as_records(shown["items"]), shown["_hostshape"]["same"]
    originals = json.loads(raw)
    assert len(pulls) == len(originals) == 11
    for shaped, original in zip(pulls, originals, strict=True):
        assert shaped["number"] == original["number"]
        assert shaped["title"] == original["title"]
        assert shaped.get("state", same.get("state")) == original["state"]  # all open: stated once
        assert shaped["user"] == original["user"]["login"]
        head = shaped["head"]  # a head is small once its noise is gone: shown, not collapsed
        assert (head["ref"], head["user"]) == (original["head"]["ref"], original["head"]["user"]["login"])
        assert shaped.get("base", same.get("base"))["ref"] == original["base"]["ref"]
    assert shown["_hostshape"]["truncated"] is True  # fields were dropped and objects collapsed: named in notes
    assert any("user→login" in note for note in shown["_hostshape"]["notes"])


def test_under_budget_results_pass_through_untouched(tmp_path) -> None:
    raw = payload_text("octokit_issues_page1.json")
    result = shape(raw, policy=_policy(tmp_path, 4000))
    assert not result.changed
    assert result.text == raw
    assert result.handle is None


def test_whole_records_first_then_an_index_of_every_other_record(tmp_path) -> None:
    result = shape(payload_text("gh_issues_list.json"), policy=_policy(tmp_path, 4000), tool="list_issues")
    shown = json.loads(result.text)
    env = shown["_hostshape"]
    assert env["truncated"] is True
    assert env["returned"] + env["listed"] == env["total"] == 50
    assert shown["_index"]["fields"][0] == "number"
    assert result.truncated and result.handle and result.path


def test_nothing_matched_reads_differently_from_cut_by_budget(tmp_path) -> None:
    policy = _policy(tmp_path, 4000, rules=(Rule(tool="list_pull_requests", jmespath="[?state=='merged']"),))
    result = shape(payload_text("gh_pulls_list.json"), policy=policy, tool="list_pull_requests")
    env = json.loads(result.text)["_hostshape"]
    assert env["matched"] is False and env["truncated"] is False


def test_a_jmespath_rule_projects_its_tool_only(tmp_path) -> None:
    rule = Rule(tool="list_pull_*", jmespath="[].{number: number, author: user.login}")
    policy = _policy(tmp_path, 4000, rules=(rule,))
    result = shape(payload_text("gh_pulls_list.json"), policy=policy, tool="list_pull_requests")
    assert json.loads(result.text)["items"][0] == {"number": 1033, "author": "viktor-zinchenko"}
    other = shape(payload_text("gh_pulls_list.json"), policy=policy, tool="list_commits")
    assert "author" not in as_records(json.loads(other.text)["items"])[0]


def test_a_field_rule_keeps_dotted_fields_with_renames(tmp_path) -> None:
    rule = Rule(tool="*", fields=("number", "user.login"), rename={"user.login": "author"})
    result = shape(payload_text("gh_pulls_list.json"), policy=_policy(tmp_path, 4000, rules=(rule,)))
    shown = json.loads(result.text)
    assert shown["items"][0] == {"number": 1033, "author": "viktor-zinchenko"}
    assert "body" in shown["_hostshape"]["omitted"]


def test_a_field_rule_pages_and_names_the_list_it_projected(tmp_path) -> None:
    # The longest list (the one a field rule projects) is not the heaviest (the one the zero-config fit would pick).
    value = {
        "tags": [{"id": i, "name": f"tag {i}", "colour": "red"} for i in range(400)],
        "posts": [{"id": i, "body": "word " * 400} for i in range(30)],
    }
    rule = Rule(tool="*", fields=("id",))
    result = shape(json.dumps(value), policy=_policy(tmp_path, 500, rules=(rule,)))
    shown = json.loads(result.text)
    env = shown["_hostshape"]
    assert env["list"] == "tags" and env["total"] == 400
    assert "colour" in env["omitted"] and "body" not in env["omitted"]
    assert all(set(record) == {"id"} for record in shown["tags"])


def test_a_document_is_outlined_then_its_head_cut_at_a_line_and_says_where(tmp_path) -> None:
    result = shape(payload_text("awesome_python_README.md"), policy=_policy(tmp_path, 2000))
    body, _, last = result.text.rpartition("\n")
    assert result.strategy == "outline" and body.startswith("markdown document: 1,183 lines")
    assert "1.3.14 Admin Panels" in body  # a heading three levels down, named in the outline
    assert last.startswith("[hostshape] truncated: outline 83 of 83 entries; head lines 1-")
    head = body.split("\nHead (lines 1-", 1)[1].split("\n", 1)[1]
    assert payload_text("awesome_python_README.md").startswith(head.rstrip()[:1000])


def test_a_safety_factor_leaves_room_for_larger_tokenizers(tmp_path) -> None:
    result = shape(payload_text("gh_issues_list.json"), policy=_policy(tmp_path, 4000, safety_factor=1.3))
    assert result.tokens * 1.3 <= 4000


def test_cl100k_is_selectable(tmp_path) -> None:
    result = shape(payload_text("gh_issues_list.json"), policy=_policy(tmp_path, 3000, encoding="cl100k_base"))
    assert count_tokens(result.text, "cl100k_base") <= 3000


def test_a_character_cap_holds_as_well_as_the_token_budget(tmp_path) -> None:
    result = shape(payload_text("gh_search_issues.json"), policy=_policy(tmp_path, 20000, max_chars=10000))
    assert len(result.text) <= 10000 and result.tokens <= 20000

"""Red team, round 5: broken promises found against the input contract, the way back, the proxy on mcp 2 and zero
configuration on unseen shapes, each in the form a user meets it (``shape``, ``read``, the proxy)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hostshape
from hostshape import Policy
from hostshape.tokens import count_tokens

# A form builder's field list (each field has "type": "text", as HTML inputs do), and a media library's assets
# ("type": "image"): records, not MCP content blocks.
FORM_FIELDS = [
    {"type": "text", "id": f"fld_{i:03d}", "name": f"field_{i}", "label": f"Field {i}", "required": i % 2 == 0}
    for i in range(40)
]
ASSETS = [
    {"type": "image", "id": f"asset_{i:03d}", "url": f"https://cdn.example.com/a/{i}.png", "width": 640 + i}
    for i in range(30)
]
# An Anthropic Messages API response (docs.anthropic.com, "Messages" response example), as a sub-agent tool returns
# it; and an OpenAI Responses item that a conversation tool returns.
MESSAGE = {
    "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
    "type": "message",
    "role": "assistant",
    "content": [{"type": "text", "text": "Hello!"}],
    "model": "claude-sonnet-4-5",
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 12, "output_tokens": 6},
}
RESPONSE_ITEM = {
    "type": "function_call_output",
    "id": "fc_67ca09c5efe0819096d0511c92b8c890",
    "call_id": "call_unLAR8MvFNptuiZK6K6HCy5k",
    "output": "22 C",
    "status": "completed",
    "created_by": "resp_abc123",
}


def _shaped(raw: Any, tmp_path: Path, budget: int = 400) -> str:
    shaped = hostshape.shape(raw, policy=Policy(budget=budget, spill_dir=tmp_path))
    assert count_tokens(shaped.text) <= budget
    return shaped.text


@pytest.mark.parametrize("form", ["value", "json text", "beside other members"])
@pytest.mark.parametrize("records", [FORM_FIELDS, ASSETS], ids=["form-fields", "image-assets"])
def test_records_with_a_block_like_type_field_keep_their_identifiers(
    tmp_path: Path, records: list[dict[str, Any]], form: str
) -> None:
    raw: Any = {"value": records, "json text": json.dumps(records), "beside other members": None}[form]
    if raw is None:
        raw = {"form_id": "frm_1", "content": records}
    text = _shaped(raw, tmp_path)
    assert text.strip()
    assert records[0]["id"] in text and records[-1]["id"] in text


@pytest.mark.parametrize("value", [MESSAGE, RESPONSE_ITEM], ids=["anthropic-message", "responses-item"])
def test_a_tool_s_own_json_is_shown_with_every_member(tmp_path: Path, value: dict[str, Any]) -> None:
    text = _shaped(value, tmp_path)
    assert json.loads(text) == value


@pytest.mark.parametrize("resource", ["not a dict", ["a list"], 7])
def test_a_malformed_resource_block_is_named_not_a_fault(tmp_path: Path, resource: Any) -> None:
    raw = {"content": [{"type": "resource", "resource": resource}, {"type": "text", "text": "the tool's own text"}]}
    text = _shaped(raw, tmp_path)
    assert "shaping failed" not in text
    assert "the tool's own text" in text


@pytest.mark.parametrize("text", [{"a": 1}, ["x", 2], 7])
def test_a_text_block_whose_text_is_not_a_string_reaches_the_model_as_json(tmp_path: Path, text: Any) -> None:
    raw = {"content": [{"type": "text", "text": text}], "isError": False}
    shown = _shaped(raw, tmp_path)
    assert json.loads(shown.splitlines()[0]) == {"type": "text", "text": text}


@pytest.mark.parametrize("budget", [4000, 8000])
def test_records_identified_only_by_a_key_value_pair_are_each_listed(tmp_path: Path, budget: int) -> None:
    # Resource tags as AWS's tagging APIs return them ({"Key": ..., "Value": ...} pairs), 200 resources, each known
    # only by its instance-id tag: the identifier listing (about 2,000 tokens) fits in 80% of either budget.
    records = [
        {
            "Tags": [
                {"Key": "instance-id", "Value": f"i-{(i * 2654435761) % 16**17:017x}"},
                {"Key": "env", "Value": "prod" if i % 3 else "dev"},
                {"Key": "owner", "Value": f"team-{i % 5}"},
            ]
        }
        for i in range(200)
    ]
    ids = [r["Tags"][0]["Value"] for r in records]
    assert count_tokens(json.dumps(ids)) <= 0.8 * budget
    text = _shaped(records, tmp_path, budget)
    assert [i for i in ids if i not in text] == []


def test_records_in_a_list_of_pages_are_each_listed_when_their_ids_fit(tmp_path: Path) -> None:
    # Results returned as pages (a list of lists of records), as batch and multi-query endpoints return them.
    pages = [[{"id": f"p{p}-{i}", "v": " ".join(["lorem ipsum dolor"] * 4)} for i in range(20)] for p in range(10)]
    ids = [r["id"] for page in pages for r in page]
    assert count_tokens(json.dumps(ids)) <= 0.8 * 2000
    text = _shaped(pages, tmp_path, 2000)
    assert [i for i in ids if f'"{i}"' not in text] == []


def test_a_cut_object_does_not_leave_most_of_its_budget_unused(tmp_path: Path) -> None:
    # A chart API's columnar answer (parallel arrays: timestamps beside the values), 200 points; at 4,000 every
    # timestamp is shown in 2,600 tokens, so at 2,000 the cut answer can use most of its budget.
    closes = [round(100 + (i * 37 % 101) / 100, 2) for i in range(200)]
    chart = {
        "chart": {
            "result": [
                {
                    "timestamp": [1764583200 + i * 60 for i in range(200)],
                    "indicators": {"quote": [{"close": closes, "volume": [i * 7919 % 10**6 for i in range(200)]}]},
                }
            ]
        }
    }
    text = _shaped(chart, tmp_path, 2000)
    assert count_tokens(text) >= 0.5 * 2000

"""The input contract: what ``shape`` reads is one typed value, whatever form reached its door."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hostshape import Policy, shape
from hostshape.examples import payload_text
from hostshape.input.contract import ImageBlock, TextBlock, ToolResult, UnreadBlock
from hostshape.input.host_forms import FASTMCP, OPENAI, joined_result, tool_result

TEXT = payload_text("gh_pulls_list.json")
VALUE = json.loads(TEXT)


@pytest.mark.parametrize(
    "raw",
    [
        TEXT,
        TEXT.encode(),
        VALUE,
        {"result": VALUE},
        json.dumps({"result": VALUE}),
        {"content": [{"type": "text", "text": TEXT}], "structuredContent": {"result": VALUE}},
        {"content": [{"type": "text", "text": TEXT}], "structuredContent": {"result": TEXT}},
        {"type": "function_call_output", "output": [{"type": "input_text", "text": TEXT}]},
        ToolResult((TextBlock(TEXT),)),
    ],
)
def test_every_form_of_one_payload_gives_the_model_the_same_text(raw: object, tmp_path: object) -> None:
    policy = Policy(budget=1500, spill=False)
    assert shape(raw, policy=policy).text == shape(TEXT, policy=policy).text


def test_the_door_names_the_host_wrapper_it_removed() -> None:
    assert tool_result({"result": VALUE}).wrapper == FASTMCP
    assert tool_result({"content": [], "structuredContent": {"result": VALUE}}).structured == VALUE
    assert tool_result({"type": "function_call_output", "output": "x"}).wrapper == OPENAI
    assert tool_result(TEXT).wrapper is None


def test_a_block_of_no_mcp_kind_is_named_in_the_envelope_never_guessed() -> None:
    strands_like = [{"text": json.dumps(VALUE[:3])}]  # a Strands block: no "type"
    result = tool_result({"content": strands_like, "isError": False})
    assert isinstance(result.content[0], UnreadBlock)
    res = shape(result, policy=Policy(budget=200, spill=False))
    assert "no MCP type (keys text)" in res.text


def test_media_beside_text_become_labelled_placeholders() -> None:
    result = ToolResult((TextBlock("see the chart"), ImageBlock("iVBORw0KGgo=", "image/png")))
    res = shape(result, policy=Policy(budget=200, spill=False))
    assert res.text == "see the chart" or "image omitted: image/png" in res.text


def test_blocks_a_host_joined_are_read_back_as_those_blocks() -> None:
    """Two pretty JSON blocks joined by a newline (Agno, CrewAI) read as the two blocks; JSON lines, one JSON text,
    two documents on one line and JSON followed by prose stay one block."""
    first, second = json.dumps(VALUE[:5], indent=2), json.dumps(VALUE[5:], indent=2)
    joined = joined_result(f"{first}\n{second}")
    assert joined.content == (TextBlock(first), TextBlock(second))
    assert joined == tool_result([{"type": "text", "text": first}, {"type": "text", "text": second}])
    for one in ('{"a": 1}\n{"a": 2}', first, f"{first} {second}", f"{first}\nsee above", "[1,\n2]\n[3"):
        assert joined_result(one) == tool_result(one), one


def test_one_payload_is_saved_once_whatever_its_form(tmp_path: Path) -> None:
    """Pretty text, compact text, the structured copy and the same list in two blocks: one handle, one saved text
    (the compact JSON of the value)."""
    policy = Policy(budget=500, spill_dir=tmp_path)
    halves = [
        {"type": "text", "text": json.dumps(VALUE[:5], indent=2)},
        {"type": "text", "text": json.dumps(VALUE[5:])},
    ]
    forms = [TEXT, json.dumps(VALUE, indent=2), VALUE, {"content": [], "structuredContent": {"result": VALUE}}]
    handles = {shape(raw, policy=policy, tool="t", args={"a": 1}).handle for raw in forms}
    assert len(handles) == 1 and None not in handles
    blocks = shape(halves, policy=policy, tool="t", args={"a": 1})
    assert json.loads((tmp_path / f"{blocks.handle}.json").read_text()) == [VALUE[:5], VALUE[5:]]
    assert blocks.handle == shape([VALUE[:5], VALUE[5:]], policy=policy, tool="t", args={"a": 1}).handle


def test_what_parsing_several_json_blocks_changed_is_named_and_saved_exactly(tmp_path: Path) -> None:
    """Each of several JSON blocks is checked for what parsing changes (a repeated key, a number past a double):
    their joined text is not one JSON document, so checking it as one would find nothing and cut silently. The
    saved text is the blocks themselves, minified (exact)."""
    rows = [{"id": i, "name": "x" * 50} for i in range(300)]
    first = json.dumps(rows).replace('"id": 7,', '"id": 123456789012345678901234567890.5,')
    second = '{"a": 1, "a": 2, "rows": ' + json.dumps(rows[:50]) + "}"
    raw = {"content": [{"type": "text", "text": first}, {"type": "text", "text": second}]}
    res = shape(raw, policy=Policy(budget=2000, spill_dir=tmp_path))
    assert res.tokens <= 2000
    notes = json.loads(res.text)["_hostshape"]["notes"]
    assert any("rounded" in n and "123456789012345678901234567890.5" in n for n in notes)
    assert any("repeated" in n for n in notes)
    saved = (tmp_path / f"{res.handle}.json").read_text()
    assert '"a":1,"a":2' in saved and "123456789012345678901234567890.5" in saved

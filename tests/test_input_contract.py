"""The input contract: what ``shape`` reads is one typed value, whatever form reached its door."""

from __future__ import annotations

import json

import pytest

from hostshape import Policy, shape
from hostshape.examples import payload_text
from hostshape.input.contract import ImageBlock, TextBlock, ToolResult, UnreadBlock
from hostshape.input.host_forms import FASTMCP, OPENAI, tool_result

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

"""One payload, one answer, in every host and whatever form the server sends it in (issue 27).

Each host runs in its real framework with its scripted model (``hostshape.testing.<host>``) against the real stdio
MCP server (hostshape/examples/mcp_server.py), which sends a payload as: pretty JSON text blocks only
(``fetch_plain``), a text with FastMCP's ``{"result": "<json>"}`` string copy (``fetch``), a JSON text with the
``{"result": [...]}`` copy (``fetch_list``), a dict as itself (``fetch_structured``), two JSON text blocks
(``fetch_blocks``), a JSON text beside an image block (``fetch_with_image``) and an ``isError`` result whose text
is JSON (``fetch_error``). What the model received is compared with ``hostshape.shape`` on the ``CallToolResult``
the server sent (read by the real ``mcp`` client), with the call's tool name and arguments and spilling on: the
same record ids, the same ``_index``, the same handle (one saved copy per payload) and the same error note.

Hosts that cannot see a part of the result are compared with ``shape`` on what they can see, and the test says
so: OpenAI Agents drops ``isError`` (agents/mcp/util.py:797-822, openai-agents 0.24). Where a host never hands the
result over whole (Claude Code's errors and its cut of a result with images, Agno's errors), a test of its own says
what the model receives instead. The hosts of each venv run
where that venv has them (scripts/test); a host whose framework is missing here is skipped.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import shown_records

from hostshape import Policy, shape
from hostshape.examples import payload_text
from hostshape.host import HostForm, json_result
from hostshape.output.envelope import TOOL_ERROR
from hostshape.wayback.retrieve import RETRIEVAL_TOOL

pytestmark = pytest.mark.host

BUDGET = 2000
# (tool, its arguments): each a form the server sends the payload in
FORMS: dict[str, tuple[str, dict[str, Any]]] = {
    "text blocks": ("fetch_plain", {"name": "gh_pulls_list.json"}),
    "result string copy": ("fetch", {"name": "gh_pulls_list.json"}),
    "result list copy": ("fetch_list", {"name": "gh_issues_list.json"}),
    "dict": ("fetch_structured", {"name": "gh_search_issues.json"}),
    "two blocks": ("fetch_blocks", {"name": "gh_pulls_list.json"}),
    "image beside": ("fetch_with_image", {"name": "gh_pulls_list.json"}),
    "error": ("fetch_error", {"name": "gh_issues_list.json"}),
}


def _unwrapped_adk(received: str) -> str:
    return str(json.loads(received)["result"])  # ADK sends {"result": text} JSON-encoded (adapters/adk.py)


def _openai_text(received: str) -> str:
    return received.replace("<input_image>", "")  # the harness marks an image part so (testing/openai_agents.py)


# host -> (the framework module that must be importable, the model text of what it received, the host's own form)
HOSTS: dict[str, tuple[str, Callable[[str], str], HostForm | None]] = {
    "openai_agents": ("agents", _openai_text, None),
    "langchain": ("langchain_mcp_adapters", str, None),
    "pydantic_ai": ("pydantic_ai", str, None),
    "adk": ("google.adk", _unwrapped_adk, HostForm(wrap=json_result)),
    "claude": ("claude_agent_sdk", str, None),
    "strands": ("strands", str, None),
    "llamaindex": ("llama_index.tools.mcp", str, None),
    "agent_framework": ("agent_framework", str, None),
    "agno": ("agno.tools.mcp", str, None),
    "crewai": ("crewai", str, None),
}
# What a host cannot see, by host and form: the result ``shape`` is given instead of the server's.
BLIND: dict[tuple[str, str], Callable[[dict[str, Any]], dict[str, Any]]] = {
    # agents/mcp/util.py:797-822: the content blocks alone become the function output, isError is not read
    ("openai_agents", "error"): lambda result: {"content": result["content"]},
}


def _pydantic_retry(text: str) -> str:
    from pydantic_ai.messages import tool_return_ta

    return tool_return_ta.dump_json({"error": text}).decode()  # a retried ToolReturnPart (adapters/pydantic_ai.py)


# A host that sends one form in a form of its own: (the model text of what it received, the host's form).
AGENT_FRAMEWORK_ERROR = "Error: Function failed. Exception: "  # _tools.py:2016-2018, include_detailed_errors=True
SENT_AS: dict[tuple[str, str], tuple[Callable[[str], str], HostForm]] = {
    ("pydantic_ai", "error"): (lambda received: str(json.loads(received)["error"]), HostForm(wrap=_pydantic_retry)),
    ("agent_framework", "error"): (
        lambda received: received.removeprefix(AGENT_FRAMEWORK_ERROR),
        HostForm(wrap=lambda text: AGENT_FRAMEWORK_ERROR + text),
    ),
}
# A host's own options for one form: Agent Framework shows the model an error's message only with detailed errors
# (else "Error: Function failed." alone, _tools.py:1995-2025).
OPTIONS: dict[tuple[str, str], dict[str, Any]] = {("agent_framework", "error"): {"detailed_errors": True}}
# Cells where the host never lets hostshape see the result whole: tested on their own below.
OWN_TESTS = {("claude", "error"), ("claude", "image beside"), ("agno", "error")}
CELLS = [(form, host) for form in FORMS for host in HOSTS if (host, form) not in OWN_TESTS]


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ModuleNotFoundError, ValueError):
        return False


_SENT: dict[str, dict[str, Any]] = {}


async def server_result(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The ``CallToolResult`` the example server sends for this call, in its wire form (read once per form)."""
    key = json.dumps([tool, arguments], sort_keys=True)
    if key not in _SENT:
        from mcp import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client

        from hostshape.proxy import sdk

        params = StdioServerParameters(command=sys.executable, args=["-m", "hostshape.examples.mcp_server"])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            _SENT[key] = sdk.wire(await session.call_tool(tool, arguments))
    return _SENT[key]


def answer(text: str) -> tuple[list[Any], Any, Any, bool]:
    """(the ids of the records shown, the ``_index`` listing, the handle, whether it says the tool failed) of a
    shaped JSON answer."""
    doc = json.loads(text)
    assert isinstance(doc, dict) and "_hostshape" in doc, text[:300]
    envelope = doc["_hostshape"]
    return (
        [r.get("id") for r in shown_records(doc)],
        doc.get("_index"),
        envelope.get("handle"),
        TOOL_ERROR in envelope.get("notes", []),
    )


def _run_options(runner: Callable[..., Any]) -> dict[str, Any]:
    """``retrieval=True`` for a runner that takes it (the others always install ``hostshape_read``)."""
    accepted = inspect.signature(runner).parameters
    return {"retrieval": True} if "retrieval" in accepted or "options" in accepted else {}


async def _run(host: str, form: str, policy: Policy) -> str:
    module = HOSTS[host][0]
    if not _installed(module):
        pytest.skip(f"{module} is not installed")
    tool, arguments = FORMS[form]
    runner: Callable[..., Awaitable[Any]] = importlib.import_module(f"hostshape.testing.{host}").run
    options = {**_run_options(runner), **OPTIONS.get((host, form), {})}
    return str((await runner(tool, policy=policy, arguments=arguments, **options)).received)


@pytest.mark.parametrize(("form", "host"), CELLS)
async def test_every_host_shapes_every_form_as_shape_does(host: str, form: str, tmp_path: Path) -> None:
    module, model_text, host_form = HOSTS[host]
    model_text, host_form = SENT_AS.get((host, form), (model_text, host_form))
    if not _installed(module):
        pytest.skip(f"{module} is not installed")
    tool, arguments = FORMS[form]
    sent = await server_result(tool, arguments)
    seen = BLIND.get((host, form), lambda result: result)(sent)
    policy = Policy(budget=BUDGET, spill_dir=tmp_path / "spill")
    reading = policy.replace(retrieval_tool=RETRIEVAL_TOOL)  # what each host's install sets: the cursor is named
    expected = answer(shape(seen, policy=reading, tool=tool, args=arguments, host=host_form).text)
    assert expected[0] and expected[2], "the payload is cut to some records and saved"
    assert expected[3] == (form == "error" and (host, form) not in BLIND)

    received = await _run(host, form, policy)

    assert answer(model_text(received)) == expected


async def test_claude_code_cut_with_images_is_recognised(tmp_path: Path) -> None:
    """Claude Code cuts a result with images to its token limit even with large-output files on, putting its own
    "[Image left out: ...]" block before the tail (CLI 2.1.332): the hook reads that as the host's cut, shapes the
    records delivered whole, and says the rest and the image never reached it."""
    policy = Policy(budget=BUDGET, spill_dir=tmp_path / "spill")
    received = await _run("claude", "image beside", policy)

    head, _, rest = received.partition("\n")
    assert head.startswith("[hostshape] Claude Code truncated this tool result") and "1 image(s)" in head, head
    ids = [pull["id"] for pull in json.loads(payload_text("gh_pulls_list.json"))]
    shown, _, handle, _ = answer(rest)
    assert shown and shown == ids[: len(shown)] and handle


async def test_claude_code_sends_an_error_result_unshaped(tmp_path: Path) -> None:
    """Claude Code runs PostToolUseFailure, not PostToolUse, for an ``isError`` result, and that hook can only add
    context (claude_agent_sdk/types.py:410-419, 579-583): the model reads the error as the host cuts it."""
    policy = Policy(budget=BUDGET, spill_dir=tmp_path / "spill")
    received = await _run("claude", "error", policy)

    assert "_hostshape" not in received and received.startswith(payload_text("gh_issues_list.json")[:200])


async def test_openai_agents_cannot_see_is_error(tmp_path: Path) -> None:
    """The OpenAI Agents SDK turns an MCP result into the function output from its content blocks alone
    (agents/mcp/util.py:797-822): an error result reaches hostshape, and the model, as a successful one, so the
    answer does not say the tool failed."""
    policy = Policy(budget=BUDGET, spill_dir=tmp_path / "spill")
    received = await _run("openai_agents", "error", policy)

    shown, _, handle, failed = answer(_openai_text(received))
    assert shown and handle and not failed


async def test_agno_sends_an_error_as_the_repr_of_its_blocks(tmp_path: Path) -> None:
    """Agno hands over an error result as ``Error from MCP tool '<name>': <the repr of its content blocks>``
    (utils/mcp.py:196-200), not the blocks: hostshape shapes that text as the tool's error, within the budget."""
    from hostshape.tokens import count_tokens

    policy = Policy(budget=BUDGET, spill_dir=tmp_path / "spill")
    received = await _run("agno", "error", policy)

    assert TOOL_ERROR in received and count_tokens(received) <= BUDGET

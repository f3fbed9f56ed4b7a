"""One answer whatever the wrapper: in every host, the model receives the same records as ``hostshape.shape``.

Each host runs in its real framework with its scripted model, against the real stdio MCP server
(hostshape/examples/mcp_server.py), whose FastMCP tools wrap the same payload three ways: a list as its JSON text
with ``{"result": [...]}`` as the structured copy (``fetch_list``), the payload as a string, structured as
``{"result": "<json>"}`` (``fetch``), and a dict payload as itself (``fetch_structured``). What the model received
is compared with ``hostshape.shape`` on the payload file at the same budget: the same record ids, the same
``_index`` listing. A host that sends the replacement in a form of its own (ADK's ``{"result": text}``) is compared
with ``shape`` given that form, since the budget holds for the text the model receives.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from helpers import shown_records

from hostshape import Policy, shape
from hostshape.examples import payload_text
from hostshape.host import HostForm, json_result

pytestmark = pytest.mark.host

BUDGET = 2000
CASES = [
    ("fetch_list", "gh_pulls_list.json"),
    ("fetch_list", "gh_issues_list.json"),
    ("fetch", "gh_pulls_list.json"),
    ("fetch", "gh_search_issues.json"),
    ("fetch_structured", "gh_search_issues.json"),
]


def _unwrapped_adk(received: str) -> str:
    return str(json.loads(received)["result"])  # ADK sends {"result": text} JSON-encoded (adapters/adk.py)


# host -> (the framework module that must be importable, the model text of what it received, the host's own form)
HOSTS: dict[str, tuple[str, Callable[[str], str], HostForm | None]] = {
    "openai_agents": ("agents", str, None),
    "langchain": ("langchain_mcp_adapters", str, None),
    "pydantic_ai": ("pydantic_ai", str, None),
    "adk": ("google.adk", _unwrapped_adk, HostForm(wrap=json_result)),
    "claude": ("claude_agent_sdk", str, None),
}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def answer(text: str) -> tuple[list[Any], Any]:
    """(the ids of the records shown, the ``_index`` listing) of a shaped answer."""
    doc = json.loads(text)
    assert isinstance(doc, list) or "_hostshape" in doc, text[:300]
    index = None if isinstance(doc, list) else doc.get("_index")
    return [r.get("id") for r in shown_records(doc)], index


@pytest.mark.parametrize("host", list(HOSTS))
@pytest.mark.parametrize(("tool", "payload"), CASES)
async def test_every_host_gives_the_model_the_records_shape_gives(host: str, tool: str, payload: str) -> None:
    module, model_text, form = HOSTS[host]
    if not _installed(module):
        pytest.skip(f"{module} is not installed")
    runner: Callable[..., Awaitable[Any]] = importlib.import_module(f"hostshape.testing.{host}").run
    # No spill: a handle is an HMAC of the tool, its arguments and the content, so its token count differs between
    # ``shape`` here and the host's call, and one token decides whether the last record fits.
    policy = Policy(budget=BUDGET, spill=False)
    expected = answer(shape(payload_text(payload), policy=policy, host=form).text)
    assert expected[0], "the payload is cut to some records"

    received = await runner(tool, policy=policy, arguments={"name": payload})

    assert answer(model_text(received.received)) == expected

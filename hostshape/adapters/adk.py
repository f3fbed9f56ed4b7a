"""Google ADK adapter: an ``after_tool_callback`` and a plugin that shape MCP tool results before the model reads them.

ADK has no result-size limit of its own (google-adk 2.13.0 passed 5-6 MB results to the model unchanged), so this
adapter fires before the model and hostshape's budget is the only budget (docs/hosts.md names the tests that prove
it with the real framework). ADK stores in the session whatever the callback returns, so once a result is shaped
the original is reachable only through hostshape's spill (the envelope's handle, read back with the
``hostshape_read`` tool that :func:`install` adds).

Use it one of two ways, each built from a policy in one call::

    agent = LlmAgent(..., tools=[toolset], after_tool_callback=after_tool_callback(policy))   # alone or in a list
    app = App(name="x", root_agent=agent, plugins=[ShapingPlugin(policy)])   # also covers workflow tool nodes

or, with the retrieval tool, ``hook, read_tool = install(policy)`` and add ``read_tool`` to the agent's tools.
Install the callback or the plugin, not both: plugins run first and the first non-None answer wins
(flows/llm_flows/tools/_caller.py:597-619), so an agent callback after the plugin only sees results the plugin left
alone. For the same reason, in a list of agent callbacks the ones after hostshape's see only unshaped results; put
hostshape last if the others must see the original. Host facts below were read in google-adk 2.13.0.

What the model receives: ``{"result": <shaped text>}``. It is ADK's own wrapper for a tool's non-dict return
(``_normalize_tool_result``, flows/llm_flows/tools/_caller.py:63-67), the one shape every ADK model connector reads
as "the text": the Anthropic connector sends the string itself (models/anthropic_llm.py:587-596), Gemini carries it
as a single string value of the function response (google-genai copies ``function_response`` verbatim, genai/
models.py:3385-3390, then ``json.dumps`` the request, genai/_api_client.py:1784), LiteLLM sends
``json.dumps(response, ensure_ascii=False)`` (models/lite_llm.py:1238, 1608-1614). Gemini and LiteLLM therefore send
the text JSON-escaped inside ``{"result": ...}``, which costs a few percent more tokens (about 3% on compact JSON,
up to about 16% on diffs). The adapter tells the core THAT encoded form,
``json.dumps({"result": text}, ensure_ascii=False)`` (``HostForm(wrap=json_result)``), and the core fits it to the
budget: LiteLLM then sends exactly that text, Anthropic less, and Gemini the same text with non-ASCII characters
\\u-escaped for transport. The dumped ``CallToolResult`` with its duplicated ``structuredContent`` is never
forwarded once shaped.

Left alone (the callback returns None): results whose encoded form already fits (``HostForm.as_is``); ADK's own
``{"error": ...}`` dicts for transport failures (mcp_tool.py:620-627) and refused confirmations (mcp_tool.py:600-607),
which are the host's messages, not a tool's result; non-MCP tools unless a policy rule names them (a rule whose tool
pattern is more than a bare ``*``); the retrieval tool itself. A tool error (``isError: true``) is budgeted like any
result. The callback never raises into the run: a fault is logged to ``hostshape.adapters.adk`` and answered as the
core answers it (``policy.on_fault``).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from hostshape.adapters._shared import default_policy, read_page, require, rule_names, shape_for_host
from hostshape.host import (
    HostForm,
    check_budget,
    fits_half_budget,
    glue_fault,
    json_result,
    smallest_budget_of,
)
from hostshape.input.host_forms import tool_result
from hostshape.policy import Policy

if TYPE_CHECKING:  # pragma: no cover - typing only
    from google.adk.plugins.base_plugin import BasePlugin
    from google.adk.tools.base_tool import BaseTool
    from google.adk.tools.function_tool import FunctionTool

    ShapingPlugin: type[BasePlugin]  # built on first access, see __getattr__

__all__ = [
    "FIRES",
    "HOST",
    "INTERCEPTION_POINT",
    "ShapingPlugin",
    "after_tool_callback",
    "install",
    "minimum_budget",
    "retrieval_tool",
    "shape_tool_response",
]

HOST = "Google ADK"
INTERCEPTION_POINT = "after_tool_callback / BasePlugin.after_tool_callback"
FIRES = "before the model (the host has no limit)"

EXTRA = "adk"
PLUGIN_NAME = "hostshape"

logger = logging.getLogger("hostshape.adapters.adk")

AfterToolCallback = Callable[..., Any]
# Where full originals go: None, the policy's spill store; "artifacts", the run's artifact service.
Store = Literal["artifacts"] | None


def _require() -> None:
    require(EXTRA, "google.adk")


def wire_text(response: Any) -> str:
    """The text of one function response as ADK's model connectors serialise it (see the module docstring)."""
    return json.dumps(response, ensure_ascii=False, default=str)


# --- routing -------------------------------------------------------------------------------------------------------


def _is_mcp_tool(tool: Any) -> bool:
    try:
        from google.adk.tools.mcp_tool.mcp_tool import McpTool
    except ImportError:  # pragma: no cover - framework missing
        return False
    return isinstance(tool, McpTool)


def _route(tool: Any, server: str | None) -> tuple[str, str | None]:
    """(unprefixed tool name, server) for routing.

    ADK's McpTool does not know its server's name (the initialize result is discarded, tools/mcp_tool/
    session_context.py:61-67). A toolset's ``tool_name_prefix`` is the closest thing: it renames each tool
    ``f"{prefix}_{name}"`` (tools/base_toolset.py:162) while ``raw_mcp_tool.name`` keeps the server's name, so the
    prefix is used as the server when present, else the adapter's ``server`` argument.
    """
    name = str(getattr(tool, "name", "") or "")
    raw = getattr(getattr(tool, "raw_mcp_tool", None), "name", None)
    if isinstance(raw, str) and raw and raw != name and name.endswith("_" + raw):
        return raw, name[: -len(raw) - 1]
    return (raw if isinstance(raw, str) and raw else name), server


def _is_host_failure(response: Any) -> bool:
    """ADK's own failure dicts, ``{"error": "MCP tool execution failed: ..."}`` (mcp_tool.py:622, 627): the host's
    message about a call that produced no result, left as ADK wrote it."""
    return isinstance(response, dict) and "error" in response and "content" not in response


# --- shaping -------------------------------------------------------------------------------------------------------


def _text_beside_structured(response: Any, policy: Policy, tool: str, server: str | None) -> tuple[str, Any] | None:
    """(text, structuredContent) of a dumped ``CallToolResult`` whose structured content is not a copy of its text
    and whose text takes under half the budget, else None. ADK sends the model both (the dumped result as it is), so
    shaping only the text would drop the data without a word; shaped instead is the data, headed by the text."""
    if not isinstance(response, dict) or response.get("structuredContent") is None:
        return None
    blocks = response.get("content") or []
    if not all(isinstance(b, dict) and b.get("type") == "text" for b in blocks):
        return None
    text = "\n".join(str(b.get("text", "")) for b in blocks)
    structured = response["structuredContent"]
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if structured in ({"result": text}, parsed, {"result": parsed}):
        return None  # a copy: shaping the result shapes both
    if not fits_half_budget(text, policy, tool=tool, server=server):
        return None
    return text, structured


def _host_form(response: Any) -> HostForm:
    """What ADK shows the model: the response dict JSON-encoded when left alone, ``{"result": text}`` JSON-encoded
    when replaced (the module docstring says why that is the form every connector's text is bounded by)."""
    return HostForm(as_is=response if isinstance(response, str) else wire_text(response), wrap=json_result)


def shape_tool_response(
    tool: BaseTool,
    args: dict[str, Any] | None,
    response: Any,
    *,
    policy: Policy,
    server: str | None = None,
) -> dict[str, Any] | None:
    """The replacement response for one ADK tool call, or None to keep the original.

    Returns ``{"result": text}`` whose JSON encoding fits the tool's budget, or None when the response already fits
    as ADK sends it, is ADK's own failure dict, belongs to a tool that is not shaped, or hostshape faulted with
    ``on_fault="pass"``. A tool error (``isError``) is budgeted like any result. Never raises.
    """
    name = str(getattr(tool, "name", "tool"))
    try:
        from hostshape.wayback.retrieve import RETRIEVAL_TOOL

        tool_name, server_name = _route(tool, server)
        if (name == RETRIEVAL_TOOL or tool_name == RETRIEVAL_TOOL) and not _is_mcp_tool(tool):
            return None  # hostshape's own pages (an MCP server's tool of that name is shaped like any)
        if not _is_mcp_tool(tool) and not rule_names(policy, tool_name, server_name):
            return None
        if response is None or _is_host_failure(response):
            return None
        payload, form = response, _host_form(response)
        beside = _text_beside_structured(response, policy, tool_name, server_name)
        if beside is not None:  # ADK shows both: the data is shaped, the short text heads it
            payload, form = beside[1], dataclasses.replace(form, notes=(beside[0],))
        given = tool_result(payload)  # a dumped CallToolResult, or the structured copy beside a short text
        res = shape_for_host(given, policy=policy, tool=tool_name, server=server_name, args=args, host=form)
        return {"result": res.text} if res.changed else None
    except Exception as exc:  # never raise into the ADK run
        logger.exception("hostshape could not shape the result of %s", name)
        text = glue_fault(response, policy, exc, tool=name, host=HostForm(wrap=json_result))
        return {"result": text} if text else None


# --- the two hooks -------------------------------------------------------------------------------------------------


def after_tool_callback(
    policy: Policy | None = None, *, server: str | None = None, store: Store = None
) -> AfterToolCallback:
    """An ``LlmAgent(after_tool_callback=...)`` that shapes tool results by ``policy``; usable alone or in a list.

    ``server`` names the MCP server for routing when the toolset has no ``tool_name_prefix``. ``store="artifacts"``
    saves full originals to the run's artifact service instead of the policy's spill store (docs/stores.md). The
    callback is async, accepts ADK's keywords (tool, args, tool_context, tool_response) and never raises.
    """
    _require()
    policy = default_policy(policy)
    _check_store(store)
    _check_budget(policy)

    async def hostshape_after_tool(
        tool: BaseTool, args: dict[str, Any], tool_context: Any, tool_response: Any
    ) -> dict[str, Any] | None:
        if store == "artifacts":
            return await _shape_into_artifacts(tool, args, tool_response, tool_context, policy, server)
        return shape_tool_response(tool, args, tool_response, policy=policy, server=server)

    return hostshape_after_tool


@functools.cache
def _plugin_class() -> Any:  # a BasePlugin subclass built on first use; its __init__ takes a Policy
    _require()
    from google.adk.plugins.base_plugin import BasePlugin

    class ShapingPlugin(BasePlugin):
        """A plugin for ``App(plugins=[...])`` that shapes tool results by ``policy``: ``ShapingPlugin(policy)``.

        Unlike the agent callback it also runs for workflow tool nodes, which call only plugin callbacks
        (workflow/_tool_node.py:237). ADK requires plugin callbacks to be async. Never raises.
        """

        def __init__(
            self,
            policy: Policy | None = None,
            *,
            server: str | None = None,
            name: str = PLUGIN_NAME,
            store: Store = None,
        ):
            super().__init__(name=name)
            _check_store(store)
            self.policy = default_policy(policy)
            _check_budget(self.policy)
            self.server = server
            self.store = store

        async def after_tool_callback(
            self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: Any, result: Any
        ) -> dict[str, Any] | None:
            if self.store == "artifacts":
                return await _shape_into_artifacts(tool, tool_args, result, tool_context, self.policy, self.server)
            return shape_tool_response(tool, tool_args, result, policy=self.policy, server=self.server)

    ShapingPlugin.__module__ = __name__
    return ShapingPlugin


def __getattr__(name: str) -> Any:
    # ``ShapingPlugin`` subclasses ADK's BasePlugin, so it is built on first access: importing this module must not
    # import the framework.
    if name == "ShapingPlugin":
        return _plugin_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- the way back --------------------------------------------------------------------------------------------------


def retrieval_tool(policy: Policy | None = None, *, store: Store = None) -> FunctionTool:
    """The ``hostshape_read`` FunctionTool: a budgeted page of a spilled result, by handle, query and cursor.

    Its page is fitted like a shaped result, so ``{"result": page}`` encoded stays within ``policy.budget``.
    ``store="artifacts"`` reads from the run's artifact service (where the hook with that option saved it).
    """
    _require()
    from google.adk.tools.function_tool import FunctionTool

    from hostshape.wayback.retrieve import RETRIEVAL_DESCRIPTION, RETRIEVAL_TOOL

    policy = default_policy(policy)
    _check_store(store)
    hostshape_read: Callable[..., Any]
    if store == "artifacts":

        async def hostshape_read(
            handle: str,
            query: str = "",
            cursor: str = "",
            section: str = "",
            lines: str = "",
            grep: str = "",
            tool_context: Any = None,
        ) -> str:
            # FunctionTool passes the ToolContext to the parameter named tool_context and leaves it out of the
            # declaration the model sees (tools/function_tool.py:187-188, 389).
            part = {"section": section, "lines": lines, "grep": grep}
            return await _read_from_artifacts(handle, query, cursor, tool_context, policy, **part)

    else:

        def hostshape_read(
            handle: str, query: str = "", cursor: str = "", section: str = "", lines: str = "", grep: str = ""
        ) -> str:
            form = HostForm(wrap=json_result)
            return read_page(handle, query, cursor, section=section, lines=lines, grep=grep, policy=policy, host=form)

    hostshape_read.__name__ = RETRIEVAL_TOOL
    hostshape_read.__qualname__ = RETRIEVAL_TOOL
    hostshape_read.__doc__ = RETRIEVAL_DESCRIPTION
    return FunctionTool(hostshape_read)


def install(
    target: Any = None,
    policy: Policy | None = None,
    *,
    mode: Literal["callback", "plugin"] = "callback",
    server: str | None = None,
    store: Store = None,
) -> Any:
    """Install hostshape in ``target`` and return what the ADK user plugs in; the policy gets ``retrieval_tool``.
    ``store="artifacts"``: full originals go to the run's artifact service (``Runner(artifact_service=...)``), read
    back from there, instead of the policy's spill store (docs/stores.md says which to pick).

    - an ``LlmAgent``: a clone whose ``after_tool_callback`` list ends with hostshape's and whose tools include
      ``hostshape_read``;
    - an ``App``: a copy whose plugins end with :class:`ShapingPlugin` (it also covers workflow tool nodes) and
      whose root agent, when an ``LlmAgent``, has the ``hostshape_read`` tool;
    - a ``Policy`` or nothing (``install(policy, mode=...)``): the pair (hook, ``hostshape_read``
      tool), the hook an ``after_tool_callback`` (``mode="callback"``) or a :class:`ShapingPlugin` (``"plugin"``).
    """
    _require()
    from google.adk.agents import LlmAgent
    from google.adk.apps import App

    from hostshape.wayback.retrieve import RETRIEVAL_TOOL

    if isinstance(target, Policy):
        target, policy = None, target
    policy = default_policy(policy, retrieval_tool=RETRIEVAL_TOOL)
    _check_budget(policy)
    if mode not in ("callback", "plugin"):
        raise ValueError(f"mode must be 'callback' or 'plugin', not {mode!r}")
    _check_store(store)
    if isinstance(target, LlmAgent):
        return _with_hostshape(target, policy, after_tool_callback(policy, server=server, store=store), store)
    if isinstance(target, App):
        root = target.root_agent
        if isinstance(root, LlmAgent):
            root = _with_hostshape(root, policy, None, store)
        plugins = [*target.plugins, _plugin_class()(policy, server=server, store=store)]
        return target.model_copy(update={"plugins": plugins, "root_agent": root})
    if target is not None:
        raise TypeError(f"install() takes an LlmAgent, an App or a Policy, not {type(target).__name__}")
    if mode == "plugin":
        return _plugin_class()(policy, server=server, store=store), retrieval_tool(policy, store=store)
    hook: Any = after_tool_callback(policy, server=server, store=store)
    return hook, retrieval_tool(policy, store=store)


def _with_hostshape(agent: Any, policy: Policy, callback: AfterToolCallback | None, store: Store = None) -> Any:
    """A clone of ``agent`` with ``callback`` appended to its after-tool callbacks and the retrieval tool added."""
    from hostshape.wayback.retrieve import RETRIEVAL_TOOL

    read_tool = retrieval_tool(policy, store=store)
    update: dict[str, Any] = {
        "tools": [*(t for t in agent.tools if getattr(t, "name", None) != RETRIEVAL_TOOL), read_tool]
    }
    if callback is not None:
        existing = agent.after_tool_callback
        callbacks = list(existing) if isinstance(existing, list) else [existing] if existing is not None else []
        update["after_tool_callback"] = [*callbacks, callback]
    return agent.clone(update=update)


# --- the artifact service as the spill store ------------------------------------------------------------------------


def minimum_budget(policy: Policy) -> int:
    """The smallest budget ADK can answer within while naming the handle that gets a result back (the envelope alone
    in ADK's ``{"result": ...}`` wrapper, its handle counted at its longest: 46 o200k tokens by default)."""
    return smallest_budget_of(policy, _FORMS)


_FORMS = [HostForm(wrap=json_result)]  # ADK shows a tool's text in {"result": ...}


def _check_budget(policy: Policy) -> None:
    """Raise ValueError when the policy's budget, or a rule's, is below ``minimum_budget``."""
    check_budget(policy, HOST, _FORMS, '{"result": <an envelope naming the handle>}')


def _check_store(store: Any) -> None:
    if store not in (None, "artifacts"):
        raise ValueError(f"store must be None or 'artifacts', not {store!r}")


async def _shape_into_artifacts(
    tool: BaseTool, args: dict[str, Any] | None, response: Any, tool_context: Any, policy: Policy, server: str | None
) -> dict[str, Any] | None:
    """``shape_tool_response`` with the originals saved as artifacts of the session (``tool_context.save_artifact``,
    agents/context.py:567). A save that fails is answered again without a handle, with the note. Never raises."""
    from hostshape.wayback.spill import SpillError
    from hostshape.wayback.stores import using
    from hostshape.wayback.stores.frameworks import ARTIFACT_MIME, artifact_name, staged

    try:
        stage = staged(policy)
    except SpillError:  # no usable secret: the policy's own store answers, with its note
        return shape_tool_response(tool, args, response, policy=policy, server=server)
    with using(stage):
        answer = shape_tool_response(tool, args, response, policy=policy, server=server)
    if not stage.pending:
        return answer
    try:
        from google.genai import types

        for handle, record in stage.pending.items():
            await tool_context.save_artifact(
                artifact_name(handle), types.Part.from_bytes(data=record, mime_type=ARTIFACT_MIME)
            )
    except Exception as exc:  # noqa: BLE001 - the artifact service failed: answer without the way back
        logger.warning("hostshape could not save to the artifact service: %s: %s", type(exc).__name__, exc)
        stage.unreachable(f"the artifact service failed ({type(exc).__name__})")
        with using(stage):
            answer = shape_tool_response(tool, args, response, policy=policy, server=server)
    return answer


async def _read_from_artifacts(
    handle: object, query: object, cursor: object, tool_context: Any, policy: Policy, **reading: object
) -> str:
    """A page of the record saved as the session's artifact ``hostshape-<handle>`` (``tool_context.load_artifact``,
    agents/context.py:546). Never raises."""
    from hostshape.wayback.spill import SpillError
    from hostshape.wayback.stores import using
    from hostshape.wayback.stores.base import valid_handle
    from hostshape.wayback.stores.frameworks import artifact_name, staged

    host = HostForm(wrap=json_result)
    try:
        stage = staged(policy)
    except SpillError:
        return read_page(handle, query, cursor, policy=policy, host=host, **reading)
    name = str(handle or "")
    if valid_handle(name):
        try:
            part = await tool_context.load_artifact(artifact_name(name))
            blob = getattr(part, "inline_data", None)
            stage.preload(name, bytes(blob.data) if blob is not None and blob.data else None)
        except Exception as exc:  # noqa: BLE001 - the service failed: the page says so
            logger.warning("hostshape could not read from the artifact service: %s: %s", type(exc).__name__, exc)
            stage.unreachable(f"the artifact service failed ({type(exc).__name__})")
    with using(stage):
        return read_page(handle, query, cursor, policy=policy, host=host, **reading)

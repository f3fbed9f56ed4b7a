"""Google ADK adapter: an ``after_tool_callback`` and a plugin that shape MCP tool results before the model reads them.

ADK has no result-size limit of its own (google-adk 2.13.0 passed 5-6 MB results to the model unchanged), so this
adapter fires before the model and hostshape's budget is the only budget. In real runs,
``tests/test_adk_adapter.py::test_without_hostshape_adk_hands_the_model_the_whole_result_twice`` shows the host
passing a 112k-token result through, and ``test_the_model_receives_the_list_within_the_budget`` shows the model
receiving it within the budget. ADK stores in the session whatever the callback returns, so once a result is shaped
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
up to about 16% on diffs). The adapter fits THAT encoded form, ``json.dumps({"result": text}, ensure_ascii=False)``,
to the budget, re-shaping with a smaller budget when the escaping pushes it over: LiteLLM then sends exactly that
text, Anthropic less, and Gemini the same text with non-ASCII characters \\u-escaped for transport.
The dumped ``CallToolResult`` with its duplicated ``structuredContent`` is never forwarded once shaped.

Left alone (the callback returns None): error shapes (``isError: true``, ADK's ``{"error": ...}`` for transport
failures, mcp_tool.py:620-627, and refused confirmations, mcp_tool.py:600-607); results whose encoded form already
fits; non-MCP tools unless a policy rule names them (a rule whose tool pattern is more than a bare ``*``); the
retrieval tool itself. The callback never raises into the run: a fault is logged to ``hostshape.adapters.adk`` and,
by ``policy.on_fault``, the original is kept (``"pass"``) or replaced by a short refusal naming the remedy
(``"refuse"``).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

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

# Re-shaping rounds when the JSON-escaped form overshoots the budget. Each round divides the core's budget by the
# growth escaping caused; on the example payloads one re-shape always sufficed.
_MAX_FIT_ROUNDS = 4


def _require() -> None:
    from hostshape.adapters._require import require

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


def _rule_names(policy: Policy, tool: str, server: str | None) -> bool:
    rule = policy.rule_for(tool, server)
    return rule is not None and rule.tool.strip("*") != ""


def _is_error_shape(response: Any) -> bool:
    if not isinstance(response, dict):
        return False
    if response.get("isError") is True or response.get("is_error") is True:
        return True
    # ADK's own failure dicts: {"error": "MCP tool execution failed: ..."} (mcp_tool.py:622, 627).
    return "error" in response and "content" not in response


# --- shaping -------------------------------------------------------------------------------------------------------


def _with_budget(policy: Policy, tool: str, server: str | None, budget: int) -> Policy:
    """``policy`` with the budget that applies to ``tool`` on ``server`` set to ``budget``."""
    rule = policy.rule_for(tool, server)
    rules = policy.rules
    if rule is not None and rule.budget is not None:
        rules = tuple(dataclasses.replace(r, budget=budget) if r is rule else r for r in rules)
    return policy.replace(budget=budget, rules=rules)


def _fits(text: str, policy: Policy, budget: int) -> bool:
    from hostshape.tokens import count_tokens

    wire = wire_text({"result": text})
    if policy.max_chars is not None and len(wire) > policy.max_chars:
        return False
    return count_tokens(wire, policy.encoding) * policy.safety_factor <= budget


def _fit_to_wire(make_text: Callable[[int], str], policy: Policy, budget: int) -> str:
    """Call ``make_text(b)`` with shrinking ``b`` until ``{"result": text}`` encoded fits ``budget``."""
    from hostshape.tokens import count_tokens

    b = budget
    text = make_text(b)
    for round_ in range(_MAX_FIT_ROUNDS):
        wire = wire_text({"result": text})
        used = count_tokens(wire, policy.encoding) * policy.safety_factor
        if used <= budget and (policy.max_chars is None or len(wire) <= policy.max_chars):
            return text
        # Escaping grows the text by a roughly constant ratio, so give the core the budget divided by it (a fixed
        # step would often leave the core's output unchanged: it drops whole records, not single tokens).
        inner = max(count_tokens(text, policy.encoding) * policy.safety_factor, 1.0)
        growth = max(used / inner, len(wire) / policy.max_chars if policy.max_chars else 0.0, 1.0)
        b = max(1, min(b - 1, int(budget / growth) - 16 * (round_ + 1)))
        if round_ == _MAX_FIT_ROUNDS - 2:
            b = max(1, b // 2)  # last round: leave no doubt
        text = make_text(b)
    if _fits(text, policy, budget):
        return text
    raise RuntimeError(f"could not fit the JSON-encoded result into {budget} tokens")


def _refusal(tool: str, exc: BaseException) -> dict[str, str]:
    return {
        "result": (
            f"[hostshape] The result of {tool} was withheld: hostshape failed to shape it "
            f"({type(exc).__name__}) and the policy says on_fault='refuse'. Call the tool again with narrower "
            "arguments, or ask the user to set on_fault='pass'."
        )
    }


def shape_tool_response(
    tool: BaseTool,
    args: dict[str, Any] | None,
    response: Any,
    *,
    policy: Policy,
    server: str | None = None,
) -> dict[str, Any] | None:
    """The replacement response for one ADK tool call, or None to keep the original.

    Returns ``{"result": text}`` whose JSON encoding fits the tool's budget, or None when the response is an error
    shape, already fits, belongs to a tool that is not shaped, or hostshape faulted with ``on_fault="pass"``. Never
    raises.
    """
    name = str(getattr(tool, "name", "tool"))
    try:
        from hostshape import shape
        from hostshape.retrieve import RETRIEVAL_TOOL

        tool_name, server_name = _route(tool, server)
        if name == RETRIEVAL_TOOL or tool_name == RETRIEVAL_TOOL:
            return None
        if not _is_mcp_tool(tool) and not _rule_names(policy, tool_name, server_name):
            return None
        if response is None or _is_error_shape(response):
            return None
        budget = policy.budget_for(tool_name, server_name)
        if _fits_as_is(response, policy, budget):
            return None

        first = shape(response, policy=policy, tool=tool_name, server=server_name, args=dict(args or {}))
        if first.fault is not None:
            # shape() already logged; it returns changed=False (pass) or a refusal text (refuse).
            return {"result": first.text} if first.changed else None
        if not first.changed and (first.is_error or not first.text):
            return None
        # changed=False with no fault means "fits when counted once": ADK would still send the text twice
        # (content + structuredContent), so the single copy below replaces it when that fits the encoded budget.

        def make_text(b: int) -> str:
            if b == budget:
                return first.text
            res = shape(
                response,
                policy=_with_budget(policy, tool_name, server_name, b),
                tool=tool_name,
                server=server_name,
                args=dict(args or {}),
            )
            if res.fault is not None:
                raise RuntimeError(f"hostshape fault while re-fitting: {res.fault}")
            return res.text

        return {"result": _fit_to_wire(make_text, policy, budget)}
    except Exception as exc:  # never raise into the ADK run
        logger.exception("hostshape could not shape the result of %s", name)
        if policy.on_fault == "refuse":
            return _refusal(name, exc)
        return None


def _fits_as_is(response: Any, policy: Policy, budget: int) -> bool:
    """The host's own response already fits once encoded, so there is nothing to gain by touching it."""
    from hostshape.tokens import count_tokens

    wire = response if isinstance(response, str) else wire_text(response)
    if policy.max_chars is not None and len(wire) > policy.max_chars:
        return False
    return count_tokens(wire, policy.encoding) * policy.safety_factor <= budget


# --- the two hooks -------------------------------------------------------------------------------------------------


def after_tool_callback(policy: Policy | None = None, *, server: str | None = None) -> AfterToolCallback:
    """An ``LlmAgent(after_tool_callback=...)`` that shapes tool results by ``policy``; usable alone or in a list.

    ``server`` names the MCP server for routing when the toolset has no ``tool_name_prefix``. The callback is async,
    accepts ADK's keywords (tool, args, tool_context, tool_response) and never raises.
    """
    _require()
    policy = policy if policy is not None else Policy()

    async def hostshape_after_tool(
        tool: BaseTool, args: dict[str, Any], tool_context: Any, tool_response: Any
    ) -> dict[str, Any] | None:
        return shape_tool_response(tool, args, tool_response, policy=policy, server=server)

    return hostshape_after_tool


@functools.cache
def _plugin_class() -> type[BasePlugin]:
    _require()
    from google.adk.plugins.base_plugin import BasePlugin

    class ShapingPlugin(BasePlugin):
        """A plugin for ``App(plugins=[...])`` that shapes tool results by ``policy``: ``ShapingPlugin(policy)``.

        Unlike the agent callback it also runs for workflow tool nodes, which call only plugin callbacks
        (workflow/_tool_node.py:237). ADK requires plugin callbacks to be async. Never raises.
        """

        def __init__(self, policy: Policy | None = None, *, server: str | None = None, name: str = PLUGIN_NAME):
            super().__init__(name=name)
            self.policy = policy if policy is not None else Policy()
            self.server = server

        async def after_tool_callback(
            self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: Any, result: Any
        ) -> dict[str, Any] | None:
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


def retrieval_tool(policy: Policy | None = None) -> FunctionTool:
    """The ``hostshape_read`` FunctionTool: a budgeted page of a spilled result, by handle, query and cursor.

    Its page is fitted like a shaped result, so ``{"result": page}`` encoded stays within ``policy.budget``.
    """
    _require()
    from google.adk.tools.function_tool import FunctionTool

    from hostshape.retrieve import RETRIEVAL_DESCRIPTION, RETRIEVAL_TOOL, read

    policy = policy if policy is not None else Policy()

    def hostshape_read(handle: str, query: str = "", cursor: str = "") -> str:
        try:
            return _fit_to_wire(
                lambda b: read(
                    handle, query=query or None, cursor=cursor or None, policy=policy.replace(budget=b)
                ),
                policy,
                policy.budget,
            )
        except Exception as exc:  # never raise into the ADK run
            logger.exception("hostshape_read failed for handle %r", handle)
            return f"[hostshape] reading {handle!r} failed ({type(exc).__name__}); call the original tool again."

    hostshape_read.__name__ = RETRIEVAL_TOOL
    hostshape_read.__qualname__ = RETRIEVAL_TOOL
    hostshape_read.__doc__ = RETRIEVAL_DESCRIPTION
    return FunctionTool(hostshape_read)


def install(
    policy: Policy | None = None, *, mode: Literal["callback", "plugin"] = "callback", server: str | None = None
) -> tuple[Any, FunctionTool]:
    """The shaping hook and the ``hostshape_read`` tool, sharing ``policy`` with ``retrieval_tool`` set.

    ``mode="callback"`` gives an ``after_tool_callback`` for ``LlmAgent``; ``mode="plugin"`` a
    :class:`ShapingPlugin` for ``App(plugins=[...])``. Add the tool to the agent's ``tools``.
    """
    from hostshape.retrieve import RETRIEVAL_TOOL

    policy = (policy if policy is not None else Policy()).replace(retrieval_tool=RETRIEVAL_TOOL)
    if mode == "plugin":
        hook: Any = _plugin_class()(policy, server=server)
    elif mode == "callback":
        hook = after_tool_callback(policy, server=server)
    else:
        raise ValueError(f"mode must be 'callback' or 'plugin', not {mode!r}")
    return hook, retrieval_tool(policy)

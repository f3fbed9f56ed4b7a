"""OpenAI Agents SDK adapter: shapes every tool output the model reads, in ``RunConfig.call_model_input_filter``.

Where it fires: immediately before every model call, over the whole input history. The SDK has no size limit of
its own on tool outputs (openai-agents 0.24.0 passed 5-6 MB results to the model unchanged), so this filter is the
only budget (docs/hosts.md names the test that proves what the model receives fits it).

Wiring, in one step::

    from hostshape import Policy
    from hostshape.adapters.openai_agents import shaping

    shaper = shaping(Policy(budget=4000))
    result = await Runner.run(agent, "...", **shaper.runner_kwargs())   # run_config + hooks
    # or: RunConfig(...) via shaper.run_config(...), and hooks=shaper.hooks

``install(agent, policy)`` does the same and also gives the agent the ``hostshape_read`` retrieval tool, so the
model can page through what the budget cut.

How it behaves (facts observed on openai-agents 0.24.0):

- The filter sees the ORIGINAL outputs on every call; nothing it returns is stored
  (agents/run_internal/turn_preparation.py:66-80 hands it a fresh ``ModelInputData`` each turn). So shaped outputs
  are cached by ``call_id`` + content hash (bounded, thread-safe) and are byte-identical on every turn.
- Items are never mutated: a shaped output is a new item dict with a new ``output``; the SDK's own input items
  share nested lists with the session history (agents/items.py:471 copies only the top level). Unchanged items are
  returned as the same objects. No item is ever dropped (that would orphan its ``function_call``).
- MCP outputs arrive as ``function_call_output`` items whose ``output`` is a list of ``input_text`` parts, one per
  content block, or the string ``json.dumps(structuredContent)`` when the server was created with
  ``use_structured_content=True`` (agents/mcp/util.py:797-823). Both shapes are handled and kept.
- The tool is named by the matching ``function_call`` item. In server-managed conversations
  (``previous_response_id`` / ``conversation_id``) the filter sees no ``function_call`` items, so ``hooks``
  records ``tool_call_id -> (server, tool)`` in ``on_tool_start`` / ``on_tool_end``
  (agents/run_internal/tool_execution.py:2052,2192) from ``agents.tool.get_function_tool_origin`` and the MCP
  binding (agents/mcp/util.py:599-613). The hooks' record wins when both exist, because it also knows the server.
- RunConfig has one filter slot: pass an existing filter (e.g. ``agents.extensions.ToolOutputTrimmer``) as
  ``then=``. Order: hostshape shapes first, then ``then`` sees the shaped items; the trimmer then cuts older turns
  to a preview of the already-budgeted text.
- An exception from the filter aborts the run (turn_preparation.py:81-94 re-raises), so this adapter never raises:
  a fault passes the item through (``on_fault="pass"``) or replaces it with a refusal naming the remedy
  (``on_fault="refuse"``), and is logged on ``hostshape.adapters.openai_agents``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hostshape.adapters._shared import default_policy, read_page, require, shape_for_host
from hostshape.input.contract import TextBlock
from hostshape.input.host_forms import blocks_result, text_result
from hostshape.policy import Policy
from hostshape.wayback.retrieve import RETRIEVAL_TOOL

if TYPE_CHECKING:
    from agents import Agent, FunctionTool, RunConfig, RunHooks
    from agents.run_config import CallModelData, ModelInputData

__all__ = [
    "FIRES",
    "HOST",
    "INTERCEPTION_POINT",
    "ShapeToolOutputs",
    "Shaping",
    "ToolCall",
    "ToolCallIndex",
    "install",
    "retrieval_tool",
    "shaping",
    "tool_name_hooks",
]

HOST = "OpenAI Agents SDK"
INTERCEPTION_POINT = "RunConfig.call_model_input_filter (+ RunHooks naming tools by tool_call_id)"
FIRES = "before the model (the host has no limit)"

EXTRA = "openai"

logger = logging.getLogger("hostshape.adapters.openai_agents")

_PASS = object()  # cache marker: leave the host's output untouched


def _require_sdk() -> None:
    require(EXTRA, "agents")


# --------------------------------------------------------------------------------------------- tool names by call id


@dataclass(frozen=True)
class ToolCall:
    """What is known about one tool call: its unprefixed tool name, its MCP server (if any) and its arguments."""

    tool: str | None
    server: str | None = None
    args: dict[str, Any] | None = None


class ToolCallIndex:
    """A bounded, thread-safe map ``call_id -> ToolCall``, filled by the hooks and read by the filter."""

    def __init__(self, max_entries: int = 4096) -> None:
        self._calls: OrderedDict[str, ToolCall] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_entries

    def record(self, call_id: str, call: ToolCall) -> None:
        with self._lock:
            self._calls[call_id] = call
            self._calls.move_to_end(call_id)
            while len(self._calls) > self._max:
                self._calls.popitem(last=False)

    def get(self, call_id: str) -> ToolCall | None:
        with self._lock:
            return self._calls.get(call_id)


def _describe_tool(tool: Any, context: Any) -> ToolCall:
    """(server, unprefixed name, arguments) of a tool the SDK is running."""
    from agents.tool import FunctionTool, ToolOriginType, get_function_tool_origin

    name = getattr(context, "tool_name", None) or getattr(tool, "name", None)
    server = None
    if isinstance(tool, FunctionTool):
        origin = get_function_tool_origin(tool)  # agents/tool.py:803
        if origin is not None and origin.type == ToolOriginType.MCP:
            server = origin.mcp_server_name
    # MCP tools keep (server, raw tool name, index) here, even when the public name carries a server prefix
    # (agents/mcp/util.py:613, openai-agents 0.24.0; private, so read defensively).
    binding = getattr(tool, "_mcp_tool_binding", None)
    if isinstance(binding, tuple) and len(binding) >= 2 and isinstance(binding[1], str):
        server = server or (binding[0] if isinstance(binding[0], str) else None)
        name = binding[1]
    args = None
    raw_args = getattr(context, "tool_arguments", None)
    if isinstance(raw_args, str) and raw_args:
        try:
            parsed = json.loads(raw_args)
            args = parsed if isinstance(parsed, dict) else None
        except ValueError:
            args = None
    return ToolCall(tool=name, server=server, args=args)


@functools.cache
def _hooks_class() -> type:
    from agents import RunHooks

    class ToolNameHooks(RunHooks):
        """RunHooks that record which tool (and MCP server) each tool_call_id ran, then call ``inner``'s hooks.

        Recording never raises; the inner hooks' own exceptions propagate as they would without hostshape.
        """

        def __init__(self, index: ToolCallIndex, inner: Any | None = None) -> None:
            self.index = index
            self.inner = inner

        def _record(self, context: Any, tool: Any) -> None:
            try:
                call_id = getattr(context, "tool_call_id", None)
                if isinstance(call_id, str) and call_id:
                    self.index.record(call_id, _describe_tool(tool, context))
            except Exception:
                logger.exception(
                    "hostshape could not record a tool name; outputs of this call use the function_call name instead"
                )

        async def _forward(self, event: str, *args: Any) -> None:
            if self.inner is not None:
                await getattr(self.inner, event)(*args)

        async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
            self._record(context, tool)
            await self._forward("on_tool_start", context, agent, tool)

        async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: Any) -> None:
            self._record(context, tool)
            await self._forward("on_tool_end", context, agent, tool, result)

        async def on_llm_start(self, context: Any, agent: Any, system_prompt: Any, input_items: Any) -> None:
            await self._forward("on_llm_start", context, agent, system_prompt, input_items)

        async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
            await self._forward("on_llm_end", context, agent, response)

        async def on_agent_start(self, context: Any, agent: Any) -> None:
            await self._forward("on_agent_start", context, agent)

        async def on_agent_end(self, context: Any, agent: Any, output: Any) -> None:
            await self._forward("on_agent_end", context, agent, output)

        async def on_handoff(self, context: Any, from_agent: Any, to_agent: Any) -> None:
            await self._forward("on_handoff", context, from_agent, to_agent)

    return ToolNameHooks


def tool_name_hooks(index: ToolCallIndex, inner: RunHooks | None = None) -> RunHooks:
    """RunHooks that fill ``index`` with ``tool_call_id -> ToolCall`` and forward every event to ``inner``."""
    _require_sdk()
    return _hooks_class()(index, inner)


# ------------------------------------------------------------------------------------------------------- the filter


def _digest(output: Any) -> str:
    if isinstance(output, str):
        data = output.encode("utf-8", "surrogatepass")
    else:
        data = json.dumps(output, sort_keys=True, ensure_ascii=False, default=repr).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def _fresh(output: Any) -> Any:
    """A new copy of a cached output, so nothing the host does to one turn's items reaches another's."""
    if isinstance(output, str):
        return output
    return [dict(part) for part in output]


def _parse_args(raw: Any) -> dict[str, Any] | None:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str) and raw:
        try:
            parsed = json.loads(raw)
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None
    return None


class ShapeToolOutputs:
    """A ``call_model_input_filter`` that replaces each tool output with hostshape's budgeted text.

    Contract: returns a ``ModelInputData`` with the same items in the same order; a ``function_call_output`` whose
    result needs shaping becomes a new dict (same keys, new ``output``: a string for a string, one ``input_text``
    part plus any non-text parts for a list); every other item is the same object. The same output gives
    byte-identical text on every call (cached by call_id + content hash, LRU of ``cache_size`` entries). Never
    raises; ``then`` (another filter, sync or async) runs on the shaped items and its errors are its own.
    """

    def __init__(
        self,
        policy: Policy,
        *,
        index: ToolCallIndex | None = None,
        then: Callable[[CallModelData[Any]], ModelInputData | Awaitable[ModelInputData]] | None = None,
        cache_size: int = 1024,
    ) -> None:
        self.policy = policy
        self.index = index if index is not None else ToolCallIndex()
        self.then = then
        self._cache: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._lock = threading.Lock()
        self._cache_size = cache_size

    def with_then(self, then: Callable[..., Any] | None) -> ShapeToolOutputs:
        """The same filter (sharing its cache and index) followed by ``then``."""
        other = ShapeToolOutputs(self.policy, index=self.index, then=then, cache_size=self._cache_size)
        other._cache, other._lock = self._cache, self._lock
        return other

    def __call__(self, data: CallModelData[Any]) -> ModelInputData | Awaitable[ModelInputData]:
        shaped = self.shape_input(data.model_data, agent=data.agent)
        if self.then is None:
            return shaped
        from agents.run_config import CallModelData as _CallModelData

        return self.then(_CallModelData(model_data=shaped, agent=data.agent, context=data.context))

    def shape_input(self, model_data: ModelInputData, *, agent: Any = None) -> ModelInputData:
        """The shaped copy of one model input (without ``then``).

        Outputs of a tool named ``hostshape_read`` are left alone only when they are the adapter's own pages: the
        call was not routed to an MCP server and ``agent`` (when given) carries the tool ``retrieval_tool`` made;
        any other tool of that name (an MCP server's, say) is shaped like every tool."""
        from agents.run_config import ModelInputData as _ModelInputData

        own_retrieval = agent is None or _has_own_retrieval(agent)
        try:
            items: list[Any] = list(model_data.input)
            calls = {
                str(item.get("call_id")): item
                for item in items
                if isinstance(item, dict) and item.get("type") == "function_call"
            }
            shaped: list[Any] = [
                self._shape_item(item, calls, own_retrieval)
                if isinstance(item, dict) and item.get("type") == "function_call_output"
                else item
                for item in items
            ]
            return _ModelInputData(input=shaped, instructions=model_data.instructions)
        except Exception:
            logger.exception("hostshape could not read the model input; passing it through unchanged")
            return model_data

    def _shape_item(
        self, item: dict[str, Any], calls: dict[str, dict[str, Any]], own_retrieval: bool
    ) -> dict[str, Any]:
        tool: str | None = None
        try:
            call_id = str(item.get("call_id"))
            call = self._tool_call(call_id, calls)
            tool = call.tool
            if tool == RETRIEVAL_TOOL and own_retrieval and call.server is None:
                return item  # already a budgeted page; re-shaping could cut its cursor
            output = item.get("output")
            key = (call_id, _digest(output))
            with self._lock:
                cached = self._cache.get(key)
                if cached is not None:
                    self._cache.move_to_end(key)
            if cached is None:
                cached = self._shape_output(output, call)
                with self._lock:
                    cached = self._cache.setdefault(key, cached)  # first writer wins: one text per item
                    while len(self._cache) > self._cache_size:
                        self._cache.popitem(last=False)
            if cached is _PASS:
                return item
            return {**item, "output": _fresh(cached)}
        except Exception as exc:
            logger.exception("hostshape failed on the output of %s (call_id=%s)", tool, item.get("call_id"))
            return self._on_fault(item, tool, exc)

    def _on_fault(self, item: dict[str, Any], tool: str | None, exc: BaseException) -> dict[str, Any]:
        from hostshape.host import glue_fault

        text = glue_fault(item.get("output"), self.policy, exc, tool=tool)
        if text is None:
            return item
        output = item.get("output")
        return {**item, "output": text if isinstance(output, str) else [{"type": "input_text", "text": text}]}

    def _tool_call(self, call_id: str, calls: dict[str, dict[str, Any]]) -> ToolCall:
        recorded = self.index.get(call_id)
        fc = calls.get(call_id)
        if recorded is not None and recorded.tool:
            if recorded.args is None and fc is not None:
                return ToolCall(recorded.tool, recorded.server, _parse_args(fc.get("arguments")))
            return recorded
        if fc is not None:
            name = fc.get("name")
            return ToolCall(name if isinstance(name, str) else None, None, _parse_args(fc.get("arguments")))
        return ToolCall(None)

    def _shape_output(self, output: Any, call: ToolCall) -> Any:
        """The replacement output for one tool output, or ``_PASS``."""
        if isinstance(output, dict):  # a single part, not wrapped in a list
            output = [output]
        if isinstance(output, str):
            given = text_result(output)
            others: list[Any] = []
        elif isinstance(output, list):
            texts = [p for p in output if isinstance(p, dict) and p.get("type") == "input_text"]
            if not texts:
                return _PASS  # images / files only: nothing textual to budget
            given = blocks_result([TextBlock(str(p.get("text", ""))) for p in texts])
            others = [p for p in output if not (isinstance(p, dict) and p.get("type") == "input_text")]
        else:
            return _PASS
        res = shape_for_host(given, policy=self.policy, tool=call.tool, server=call.server, args=call.args)
        if not res.changed:
            return _PASS
        if isinstance(output, str):
            return res.text
        return ({"type": "input_text", "text": res.text}, *(dict(p) for p in others))


# ------------------------------------------------------------------------------------------------------- one step


@dataclass(frozen=True)
class Shaping:
    """The filter and the hooks that go with it. Use ``runner_kwargs()`` (or ``run_config()`` + ``hooks``)."""

    policy: Policy
    filter: ShapeToolOutputs
    hooks: Any  # agents.RunHooks

    def run_config(self, base: RunConfig | None = None, **overrides: Any) -> RunConfig:
        """A RunConfig whose ``call_model_input_filter`` is hostshape's filter.

        ``base``'s own filter, if any, is composed to run after hostshape's (as ``then=`` would).
        """
        _require_sdk()
        import dataclasses

        from agents import RunConfig

        config = base if base is not None else RunConfig()
        flt = self.filter
        existing = config.call_model_input_filter
        if existing is not None and existing is not flt:
            flt = flt.with_then(existing)
        return dataclasses.replace(config, call_model_input_filter=flt, **overrides)

    def runner_kwargs(self, base: RunConfig | None = None, **overrides: Any) -> dict[str, Any]:
        """``{"run_config": ..., "hooks": ...}`` for ``Runner.run`` / ``run_sync`` / ``run_streamed``."""
        return {"run_config": self.run_config(base, **overrides), "hooks": self.hooks}


def shaping(
    policy: Policy | None = None,
    *,
    then: Callable[..., Any] | None = None,
    hooks: RunHooks | None = None,
    cache_size: int = 1024,
) -> Shaping:
    """Build the filter and its hooks from a policy.

    ``then``: an existing ``call_model_input_filter`` (e.g. ``ToolOutputTrimmer``) to run after hostshape's.
    ``hooks``: your own RunHooks; the returned hooks forward every event to them.
    """
    _require_sdk()
    policy = default_policy(policy)
    index = ToolCallIndex()
    return Shaping(
        policy=policy,
        filter=ShapeToolOutputs(policy, index=index, then=then, cache_size=cache_size),
        hooks=tool_name_hooks(index, hooks),
    )


# ------------------------------------------------------------------------------------------- the retrieval tool


def retrieval_tool(policy: Policy) -> FunctionTool:
    """The ``hostshape_read`` function tool: a budgeted page of a saved full result, by handle.

    Its body calls ``hostshape.wayback.retrieve.read``, which never raises; glue failures come back as a message.
    """
    _require_sdk()
    from agents import function_tool

    from hostshape.wayback.retrieve import RETRIEVAL_DESCRIPTION

    def hostshape_read(
        handle: str, query: str = "", cursor: str = "", section: str = "", lines: str = "", grep: str = ""
    ) -> str:
        """Read a saved full result.

        Args:
            handle: The handle from a result's "_hostshape" envelope.
            query: JSON results: optional JMESPath expression applied to the saved result.
            cursor: The cursor from the previous page, to read the next one.
            section: Text results: an outline entry's id or title, exactly as the outline shows it.
            lines: Text results: a line range "START-END".
            grep: Text results: text or an RE2 regular expression; matching lines with line numbers and context.
        """
        return read_page(handle, query, cursor, section=section, lines=lines, grep=grep, policy=policy)

    tool = function_tool(hostshape_read, name_override=RETRIEVAL_TOOL, description_override=RETRIEVAL_DESCRIPTION)
    setattr(tool, _OWN_TOOL_MARK, True)
    return tool


_OWN_TOOL_MARK = "_hostshape_retrieval"


def _has_own_retrieval(agent: Any) -> bool:
    """Whether ``agent`` carries the ``hostshape_read`` tool that ``retrieval_tool`` made (not an MCP server's)."""
    return any(getattr(t, _OWN_TOOL_MARK, False) for t in getattr(agent, "tools", None) or ())


def install(
    agent: Agent[Any],
    policy: Policy | None = None,
    *,
    then: Callable[..., Any] | None = None,
    hooks: RunHooks | None = None,
    cache_size: int = 1024,
) -> tuple[Agent[Any], Shaping]:
    """A copy of ``agent`` with the ``hostshape_read`` tool, and the ``Shaping`` to run it with.

    The policy gets ``retrieval_tool="hostshape_read"`` so envelopes name the tool and the handle::

        agent, shaper = install(agent, Policy(budget=4000))
        await Runner.run(agent, "...", **shaper.runner_kwargs())
    """
    _require_sdk()
    from agents import Agent

    if not isinstance(agent, Agent):
        raise TypeError(
            f"install() takes the Agent to extend (and a Policy second), not {type(agent).__name__}: "
            "agent, shaper = install(Agent(...), Policy(...)); for the shaping alone, shaping(Policy(...))"
        )
    policy = default_policy(policy, retrieval_tool=RETRIEVAL_TOOL)
    tools = [t for t in agent.tools if getattr(t, "name", None) != RETRIEVAL_TOOL]
    tools.append(retrieval_tool(policy))
    return agent.clone(tools=tools), shaping(policy, then=then, hooks=hooks, cache_size=cache_size)

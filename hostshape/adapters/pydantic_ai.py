"""Pydantic AI adapter: a ``process_tool_call`` hook on ``pydantic_ai.mcp.MCPToolset``.

Where it fires: Pydantic AI has no result-size limit of its own (usage limits only abort a run), so the hook fires
before the model and hostshape's budget is the only budget; the model receives exactly the shaped text
(docs/hosts.md names the test that proves it).

Observed on pydantic-ai-slim 2.68.0 (site-packages/pydantic_ai):

- ``MCPToolset.call_tool`` awaits ``process_tool_call(ctx, call_tool, name, tool_args)`` (mcp.py:1712-1715); only
  ``MCPToolset`` accepts it, and it must be async. ``load_mcp_toolsets()`` builds ``MCPToolset(transport, id=name)``
  without one and wraps it in ``.prefixed(name)`` (mcp.py:2412-2425); ``PrefixedToolset.call_tool`` strips the
  prefix before delegating (toolsets/prefixed.py:35-41), so the hook sees the server's own tool name.
- ``call_tool`` returns an already-converted value (mcp.py:2185-2226): structuredContent when every block is text,
  ``{"result": X}`` unwrapped to X, a text block starting with ``[``/``{`` parsed, images as ``BinaryImage``.
- A tool error (isError) is raised from ``call_tool`` as ``ModelRetry`` (mcp.py:1687-1697, 2139-2140) and reaches the
  model as a retried ``ToolReturnPart``, ``{"error": message}`` JSON. The hook budgets that text like any result
  and raises ``ModelRetry`` with the shaped message; an error that fits is re-raised unchanged.
- A returned ``ToolReturn`` becomes ``ToolReturnPart(content=return_value, metadata=metadata)``
  (_tool_execution.py:164-189); providers send ``ToolReturnPart.model_response_str()``, which is a ``str`` content
  as is (messages.py:2565-2583; models/openai/_responses_model.py:3278, models/openai/_chat_model.py:1306). So the
  hook returns ``ToolReturn(return_value=<shaped text>, metadata={"hostshape": stats})``: the model reads exactly
  the shaped text and the statistics stay in the message history for the application.

A value that already fits is returned untouched. A lone image or binary block (``BinaryContent``) is passed through:
the model receives it natively, not as text, so there is no text to budget; images and audio beside text are kept
beside the shaped text. Parallel tool calls run the hook
concurrently; shaping runs in a worker thread so one large result does not stall the other calls' MCP traffic.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hostshape.adapters._shared import default_policy, read_function, require, shape_for_host
from hostshape.input.host_forms import text_result, tool_result
from hostshape.policy import Policy

if TYPE_CHECKING:
    from pydantic_ai import RunContext
    from pydantic_ai.mcp import CallToolFunc, MCPToolset
    from pydantic_ai.toolsets import AbstractToolset, FunctionToolset

    from hostshape.host import HostForm

HOST = "Pydantic AI"
INTERCEPTION_POINT = "MCPToolset(process_tool_call=...)"
FIRES = "before the model (the host has no limit)"

METADATA_KEY = "hostshape"
"""Key under which ``ToolReturnPart.metadata`` carries the shaping statistics (never sent to the model)."""

logger = logging.getLogger("hostshape.adapters.pydantic_ai")

EXTRA = "pydantic-ai"
_MODULES = ("pydantic_ai", "pydantic_ai.mcp")

ProcessToolCall = Callable[["RunContext[Any]", "CallToolFunc", str, "dict[str, Any]"], Awaitable[Any]]


@dataclass(frozen=True)
class ShapingHook:
    """An ``MCPToolset.process_tool_call`` that shapes every result of one toolset.

    ``inner`` is a hook the toolset already had; it runs first (closest to the server) and hostshape shapes what it
    returns. ``server`` is the toolset's id, used with the tool name to pick the policy's rule.
    """

    policy: Policy
    server: str | None = None
    inner: ProcessToolCall | None = None

    def __post_init__(self) -> None:
        _check_budget(self.policy)  # a budget below the smallest answer is refused at install

    async def __call__(
        self, ctx: RunContext[Any], call_tool: CallToolFunc, name: str, tool_args: dict[str, Any]
    ) -> Any:
        from pydantic_ai.exceptions import ModelRetry

        try:
            if self.inner is not None:
                value = await self.inner(ctx, call_tool, name, tool_args)
            else:
                value = await call_tool(name, tool_args)
        except ModelRetry as retry:  # a tool error: budgeted like any result, then retried as before
            shaped = await _in_thread(self._shape_error, retry.message, name, tool_args)
            if shaped is None:
                raise
            raise ModelRetry(shaped) from retry
        # ToolFailed, cancellation and the host's own failures propagate unchanged.
        try:
            return await _in_thread(self._shape, value, name, tool_args)
        except Exception as exc:  # never raise into the run
            return _on_fault(self.policy, value, name, exc)

    def _shape(self, value: Any, tool: str, args: dict[str, Any]) -> Any:
        from pydantic_ai.messages import BinaryContent, ToolReturn

        outer: ToolReturn[Any] | None = value if isinstance(value, ToolReturn) else None
        content: Any = outer.return_value if outer is not None else value
        if content is None or isinstance(content, BinaryContent):
            return value
        # Images and audio reach the model natively, beside the text (ToolReturnPart.files): they are kept as they
        # are, and the core shapes the rest; one item left is that item (JSON beside an image is shaped as the MCP
        # result's JSON is, not as a list holding it).
        media = [item for item in content if _is_media(item)] if isinstance(content, list) else []
        if media:
            content = [item for item in content if not _is_media(item)]
            if not content:
                return value
            if len(content) == 1:
                content = content[0]
        given = tool_result(_core_input(content))
        res = shape_for_host(given, policy=self.policy, tool=tool, server=self.server, args=args)
        if not res.changed:
            return value
        shaped: Any = [res.text, *media] if media else res.text
        if outer is None:
            return ToolReturn(return_value=shaped, metadata={METADATA_KEY: res.stats()})
        metadata = outer.metadata
        if metadata is None:
            metadata = {METADATA_KEY: res.stats()}
        elif isinstance(metadata, dict):
            metadata = {**metadata, METADATA_KEY: res.stats()}
        return dataclasses.replace(outer, return_value=shaped, metadata=metadata)

    def _shape_error(self, message: str, tool: str, args: dict[str, Any]) -> str | None:
        """The retry message shaped to the budget as the model reads it, or None to keep the original.

        A retried ToolReturnPart reaches the model as ``{"error": message}`` JSON (``ToolReturnPart.
        model_response_str``, messages.py:2565-2587, pydantic-ai-slim 2.68.0), so that is the form measured.
        """
        from hostshape.host import HostForm

        try:
            form = HostForm(as_is=_retry_text(message), wrap=_retry_text)
            given = text_result(message, is_error=True)
            res = shape_for_host(given, policy=self.policy, tool=tool, server=self.server, args=args, host=form)
        except Exception:  # keep the host's own retry
            logger.exception("shaping the error of %r failed in the Pydantic AI adapter", tool)
            return None
        return res.text if res.changed and res.text else None


def capability(policy: Policy | None = None) -> Any:
    """A Pydantic AI capability that shapes the result of EVERY tool of an agent and offers ``hostshape_read``.

    ``Agent(model, toolsets=[...], capabilities=[capability(policy)])``: its ``wrap_tool_execute`` shapes each
    tool's return value (and a ``ModelRetry`` message) like ``process_tool_call`` does for MCP toolsets, routing
    rules by the name the model sees (a prefixed toolset's prefix included); results an MCP hook already shaped
    are left alone. Its toolset is the retrieval toolset. Pydantic AI's capability hooks
    (capabilities/abstract.py:1373-1391, pydantic-ai-slim 2.68.0) cover function tools too, which
    ``process_tool_call`` cannot.
    """
    require(EXTRA, "pydantic_ai", "pydantic_ai.capabilities")
    from hostshape.wayback.retrieve import RETRIEVAL_TOOL

    return _capability_class()(default_policy(policy, retrieval_tool=RETRIEVAL_TOOL))


@functools.cache
def _capability_class() -> Any:
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.exceptions import ToolRetryError
    from pydantic_ai.messages import ToolReturn, ToolReturnPart

    from hostshape.wayback.retrieve import RETRIEVAL_TOOL

    class Shaping(AbstractCapability[Any]):
        """Shapes every tool result to ``policy`` (see ``capability``)."""

        def __init__(self, policy: Policy) -> None:
            self.policy = policy
            self.shaper = ShapingHook(policy=policy)
            self.toolset = retrieval_toolset(policy)

        def get_toolset(self) -> Any:
            return self.toolset

        async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any) -> Any:
            name = str(call.tool_name)
            try:
                result = await handler(args)
            except ToolRetryError as retry:  # a tool's ModelRetry, already a retried ToolReturnPart (tool_manager.py)
                part = retry.tool_retry
                if name == RETRIEVAL_TOOL or not isinstance(part, ToolReturnPart) or not isinstance(part.content, str):
                    raise
                shaped = await _in_thread(self.shaper._shape_error, part.content, name, dict(args or {}))
                if shaped is None:
                    raise
                raise ToolRetryError(dataclasses.replace(part, content=shaped)) from retry
            already = isinstance(result, ToolReturn) and METADATA_KEY in (result.metadata or {})
            if name == RETRIEVAL_TOOL or already:
                return result
            try:
                return await _in_thread(self.shaper._shape, result, name, dict(args or {}))
            except Exception as exc:  # never raise into the run
                return _on_fault(self.policy, result, name, exc)

    Shaping.__module__ = __name__
    return Shaping


async def _in_thread(func: Callable[..., Any], *args: Any) -> Any:
    import anyio.to_thread

    return await anyio.to_thread.run_sync(func, *args)


def minimum_budget(policy: Policy) -> int:
    """The smallest budget Pydantic AI can answer within while naming the handle that gets a result back: the
    envelope alone as a tool's return (a ``str``, sent as it is) and as a retry's (``{"error": ...}`` JSON)."""
    from hostshape.host import smallest_budget_of

    return smallest_budget_of(policy, _forms())


def _check_budget(policy: Policy) -> None:
    """Raise ValueError when the policy's budget, or a rule's, is below ``minimum_budget``."""
    from hostshape.host import check_budget

    check_budget(policy, HOST, _forms(), 'an envelope naming the handle (in {"error": ...} when retried)')


def _forms() -> list[HostForm]:
    from hostshape.host import HostForm

    return [HostForm(), HostForm(wrap=_retry_text)]


def _retry_text(message: str) -> str:
    from pydantic_ai.messages import tool_return_ta

    return tool_return_ta.dump_json({"error": message}).decode()


def _is_media(item: Any) -> bool:
    from pydantic_ai.messages import BinaryContent

    return isinstance(item, BinaryContent) and (item.is_image or item.is_audio)


def process_tool_call(policy: Policy | None = None, *, server: str | None = None) -> ShapingHook:
    """An async ``process_tool_call`` for ``MCPToolset(..., process_tool_call=...)`` that shapes every result.

    ``server`` names the MCP server for rule routing (``Rule(server=...)``); ``attach`` fills it from the toolset's
    id. The hook never raises anything but what the tool call itself raised (``ModelRetry`` for tool errors).
    """
    require(EXTRA, *_MODULES)
    return ShapingHook(policy=default_policy(policy), server=server)


def attach(targets: Any, *, policy: Policy | None = None) -> Any:
    """Install the shaping hook on every ``MCPToolset`` inside ``targets``, in place, and return ``targets``.

    ``targets`` is a toolset (wrappers such as ``PrefixedToolset``, ``FilteredToolset`` and ``CombinedToolset`` are
    walked down to their MCP leaves), an ``MCP`` capability, or an iterable of those, e.g. ``load_mcp_toolsets()``.
    A hook a toolset already has keeps running, inside hostshape's; attaching twice replaces the policy rather than
    shaping twice. Non-MCP toolsets are left alone.
    """
    require(EXTRA, *_MODULES)
    chosen = default_policy(policy)
    for target in _as_list(targets):
        for leaf in _mcp_leaves(target):
            current = leaf.process_tool_call
            inner = current.inner if isinstance(current, ShapingHook) else current
            leaf.process_tool_call = ShapingHook(policy=chosen, server=leaf.id, inner=inner)
    return targets


def retrieval_toolset(policy: Policy | None = None) -> FunctionToolset[Any]:
    """A ``FunctionToolset`` holding the one retrieval tool, ``hostshape_read(handle, query="", cursor="")``.

    It returns a budgeted page of a result hostshape saved when it cut it, narrowed by an optional JMESPath query,
    with a cursor for the next page. It never raises: unknown handles and foreign cursors come back as text.
    """
    require(EXTRA, "pydantic_ai", "pydantic_ai.toolsets")
    from pydantic_ai import Tool
    from pydantic_ai.toolsets import FunctionToolset

    from hostshape.wayback.retrieve import RETRIEVAL_DESCRIPTION, RETRIEVAL_TOOL

    hostshape_read = read_function(default_policy(policy))

    tool = Tool(hostshape_read, name=RETRIEVAL_TOOL, description=RETRIEVAL_DESCRIPTION, takes_ctx=False)
    return FunctionToolset([tool], id=RETRIEVAL_TOOL)


def install(targets: Any = (), policy: Policy | None = None) -> list[AbstractToolset[Any]]:
    """Shape every MCP result in ``targets`` and offer the retrieval tool, in one call.

    Attaches the hook (see ``attach``) with ``policy.replace(retrieval_tool="hostshape_read")`` so each envelope's
    hint names the tool, and returns the toolsets from ``targets`` plus the retrieval toolset, ready for
    ``Agent(toolsets=...)``. ``MCP`` capabilities in ``targets`` are attached in place but not returned: keep
    passing them as ``capabilities=``.
    """
    require(EXTRA, *_MODULES)
    from pydantic_ai.toolsets import AbstractToolset

    from hostshape.wayback.retrieve import RETRIEVAL_TOOL

    chosen = default_policy(policy, retrieval_tool=RETRIEVAL_TOOL)
    items = _as_list(targets)
    attach(items, policy=chosen)
    toolsets: list[AbstractToolset[Any]] = [t for t in items if isinstance(t, AbstractToolset)]
    toolsets.append(retrieval_toolset(chosen))
    return toolsets


def _as_list(targets: Any) -> list[Any]:
    from pydantic_ai.toolsets import AbstractToolset

    if isinstance(targets, AbstractToolset) or not isinstance(targets, Iterable):
        return [targets]
    return list(targets)


def _mcp_leaves(target: Any) -> list[MCPToolset[Any]]:
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.toolsets import AbstractToolset

    if not isinstance(target, AbstractToolset):
        # An `MCP` capability keeps its MCPToolset in `.local` (capabilities/mcp.py:163-175, 318).
        target = getattr(target, "local", None)
        if not isinstance(target, AbstractToolset):
            return []
    leaves: list[MCPToolset[Any]] = []
    # `apply` visits every leaf through wrappers and combinations
    # (toolsets/abstract.py:298-300, toolsets/wrapper.py:70-71, toolsets/combined.py:107-109).
    target.apply(lambda leaf: leaves.append(leaf) if isinstance(leaf, MCPToolset) else None)
    return leaves


def _core_input(value: Any) -> Any:
    """The converted value in a form the core reads: binaries inside a list become MCP content blocks."""
    from pydantic_ai.messages import BinaryContent

    if not isinstance(value, list) or not any(isinstance(item, BinaryContent) for item in value):
        return value
    return [_block(item) for item in value]


def _block(item: Any) -> dict[str, Any]:
    from pydantic_ai.messages import BinaryContent

    if isinstance(item, BinaryContent):
        kind = "image" if item.is_image else "audio" if item.is_audio else None
        data = base64.b64encode(item.data).decode("ascii")
        if kind is None:
            return {"type": "resource", "resource": {"uri": "blob:", "mimeType": item.media_type, "blob": data}}
        return {"type": kind, "data": data, "mimeType": item.media_type}
    text = item if isinstance(item, str) else json.dumps(item, ensure_ascii=False, separators=(",", ":"))
    return {"type": "text", "text": text}


def _on_fault(policy: Policy, value: Any, tool: str, exc: Exception) -> Any:
    logger.error("shaping %r failed in the Pydantic AI adapter: %r", tool, exc, exc_info=exc)
    from hostshape.host import glue_fault

    text = glue_fault(value, policy, exc, tool=tool)
    return value if text is None else text


__all__: Sequence[str] = (
    "FIRES",
    "HOST",
    "INTERCEPTION_POINT",
    "METADATA_KEY",
    "ShapingHook",
    "attach",
    "capability",
    "install",
    "minimum_budget",
    "process_tool_call",
    "retrieval_toolset",
)

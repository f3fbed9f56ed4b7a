"""Microsoft Agent Framework adapter: a ``FunctionMiddleware`` that overwrites each MCP tool's ``context.result``.

Where it fires: before the model, after the tool's own parsing, and no host limit stands in the way; hostshape's
budget is the only budget for what the model reads. Agent Framework's function middleware sees the parsed result
after ``call_next()`` and whatever it leaves in ``context.result`` is what the model receives (agent-framework-core
1.23.0, _middleware.py:428-460, 977-981). The framework bounds only the copy of the MCP result it keeps for hosts
(``max_host_payload_size_bytes``, 1 MiB, _mcp.py:454-493), never the model-visible text; its compaction strategies
(_compaction.py) act later, on the history before a model call, so hostshape's text is what they see. The
framework's runs are async only (``Agent.run``, streaming or not); both paths run the middleware.

Use it in one call, ``agent = install(Agent(client=..., tools=[mcp_tool]), policy)``, or build the parts:
``middleware, read_tool = install(policy)`` then ``Agent(client=..., tools=[mcp_tool, read_tool],
middleware=[middleware])``.

What the model receives: by default, for a result with ``structuredContent``, the JSON of the structured content
(``structured_first``, _mcp.py:175-189; FastMCP's ``-> str`` tools send ``{"result": text}``, so the payload arrives
JSON-escaped). Shaped, the result is one text item, the shaped text, followed by the original non-text items
(images, audio, files, which the model receives natively). A tool error reaches the model as
``Error: Function failed.`` (with ``include_detailed_errors=True``, followed by ``Exception: <message>``,
_tools.py:1995-2025); a long message is budgeted in that form and re-raised as a ``ToolExecutionException``. Left
alone: results that fit as the model reads them, functions that are not MCP tools unless a policy rule names them,
and ``hostshape_read`` itself. Rules route by the MCP tool's own name (``_mcp_remote_name``, _mcp.py:192) and the
``server`` given to :func:`install`. Nothing raises into the run: a fault is logged to
``hostshape.adapters.agent_framework`` and answered as the core answers it (``policy.on_fault``).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from hostshape.adapters._shared import (
    Routed,
    default_policy,
    install_parts,
    read_function,
    require,
    rule_names,
    shape_for_host,
)
from hostshape.host import HostForm, check_budget, glue_fault, smallest_budget_of
from hostshape.input.contract import TextBlock
from hostshape.input.host_forms import blocks_result, text_result
from hostshape.policy import Policy

__all__ = [
    "FIRES",
    "HOST",
    "INTERCEPTION_POINT",
    "install",
    "middleware",
    "minimum_budget",
    "retrieval_tool",
    "shape_result",
]

HOST = "Microsoft Agent Framework"
INTERCEPTION_POINT = "FunctionMiddleware: context.result"
FIRES = "before the model (the host has no limit)"

EXTRA = "agent-framework"
ERROR_PREFIX = "Error: Function failed. Exception: "  # _tools.py:2016-2018 with include_detailed_errors=True

logger = logging.getLogger("hostshape.adapters.agent_framework")


def _require() -> None:
    require(EXTRA, "agent_framework")


def _route(function: Any, server: str | None) -> tuple[str, bool]:
    """(the MCP tool's own name, is an MCP tool) for the invoked ``function``."""
    properties = getattr(function, "additional_properties", None) or {}
    remote = properties.get("_mcp_remote_name")  # set on every MCP-generated function (_mcp.py:192, 1605-1631)
    if isinstance(remote, str) and remote:
        return remote, True
    return str(getattr(function, "name", "") or ""), False


def shape_result(result: Any, *, tool: str, args: Any, policy: Policy, server: str | None = None) -> Any:
    """The replacement for one function's ``context.result`` (a ``list[Content]`` or ``str``), or None to keep it.
    Never raises."""
    try:
        from agent_framework import Content

        items = [Content.from_text(result)] if isinstance(result, str) else result
        if not isinstance(items, list) or not all(isinstance(i, Content) for i in items):
            return None
        texts = [i.text or "" for i in items if i.type == "text"]
        native = [i for i in items if i.type != "text"]
        if not texts:
            return None  # media only: nothing textual to budget
        given = blocks_result([TextBlock(t) for t in texts])
        form = HostForm(as_is="\n".join(texts))
        res = shape_for_host(given, policy=policy, tool=tool, server=server, args=args, host=form)
        if not res.changed:
            return None
        return [Content.from_text(res.text), *native]
    except Exception as exc:  # never raise into the run
        logger.exception("hostshape could not shape the result of %s", tool)
        return glue_fault(result, policy, exc, tool=tool, server=server)


def _shaped_error(message: str, *, tool: str, args: Any, policy: Policy, server: str | None) -> str | None:
    """A tool error's message fitted to the budget as the model reads it (after ``ERROR_PREFIX``), or None."""
    try:
        form = dataclasses.replace(_FORMS[1], as_is=ERROR_PREFIX + message)
        given = text_result(message, is_error=True)
        res = shape_for_host(given, policy=policy, tool=tool, server=server, args=args, host=form)
    except Exception:  # keep the host's own error
        logger.exception("hostshape could not shape the error of %s", tool)
        return None
    return res.text if res.changed and res.text else None


_FORMS = [HostForm(), HostForm(wrap=lambda text: ERROR_PREFIX + text)]  # a result's form and an error's


def minimum_budget(policy: Policy) -> int:
    """The smallest budget Agent Framework can answer within while naming the handle that gets a result back: the
    envelope alone as a result's text and after an error's ``ERROR_PREFIX``."""
    return smallest_budget_of(policy, _FORMS)


@functools.cache
def _middleware_class() -> Any:
    from agent_framework import FunctionInvocationContext, FunctionMiddleware
    from agent_framework.exceptions import ToolExecutionException

    from hostshape.wayback.retrieve import RETRIEVAL_TOOL

    class ShapingMiddleware(Routed, FunctionMiddleware):
        """Shapes each tool result by ``policy`` (see the module docstring); a budget below ``minimum_budget`` is
        refused when it is made."""

        def __init__(self, policy: Policy, server: str | None = None) -> None:
            check_budget(policy, HOST, _FORMS, f"an envelope naming the handle (after {ERROR_PREFIX!r} for an error)")
            super().__init__(policy, server)

        async def process(self, context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]) -> None:
            tool, is_mcp = _route(context.function, self.server)
            wanted = tool != RETRIEVAL_TOOL and (is_mcp or rule_names(self.policy, tool, self.server))
            try:
                await call_next()
            except ToolExecutionException as exc:
                if not wanted:
                    raise
                message = _shaped_error(
                    str(exc), tool=tool, args=context.arguments, policy=self.policy, server=self.server
                )
                if message is None:
                    raise
                raise ToolExecutionException(message) from exc
            if not wanted:
                return
            import anyio.to_thread

            result = context.result

            def work() -> Any:
                return shape_result(result, tool=tool, args=context.arguments, policy=self.policy, server=self.server)

            shaped = await anyio.to_thread.run_sync(work)
            if shaped is not None:
                context.result = shaped

    ShapingMiddleware.__module__ = __name__
    return ShapingMiddleware


def middleware(policy: Policy | None = None, *, server: str | None = None) -> Any:
    """A ``FunctionMiddleware`` for ``Agent(middleware=[...])`` (or a chat client's, or one run's) that shapes tool
    results by ``policy``; ``server`` names the MCP server for the policy's rules."""
    _require()
    return _middleware_class()(default_policy(policy), server)


def retrieval_tool(policy: Policy | None = None) -> Any:
    """The ``hostshape_read`` ``FunctionTool``: a budgeted page of a spilled result. Never raises."""
    _require()
    from agent_framework import tool

    from hostshape.wayback.retrieve import RETRIEVAL_DESCRIPTION, RETRIEVAL_TOOL

    hostshape_read = read_function(default_policy(policy))

    return tool(hostshape_read, name=RETRIEVAL_TOOL, description=RETRIEVAL_DESCRIPTION)


def install(target: Any = None, policy: Policy | None = None, *, server: str | None = None) -> Any:
    """Install hostshape in an Agent Framework ``Agent`` (in place; returns it): its middleware gets hostshape's and
    its tools ``hostshape_read``. Given a ``Policy`` or nothing, return the pair (middleware, ``hostshape_read``
    tool). The policy gets ``retrieval_tool="hostshape_read"`` so each envelope's hint names the tool."""
    _require()
    from agent_framework import Agent

    from hostshape.wayback.retrieve import RETRIEVAL_TOOL

    target, shaping, read_tool = install_parts(
        target, policy, lambda chosen: _middleware_class()(chosen, server), retrieval_tool, Agent
    )
    if target is None:
        return shaping, read_tool
    target.middleware = [*(target.middleware or []), shaping]
    tools = list(target.default_options.get("tools") or [])
    if not any(getattr(t, "name", None) == RETRIEVAL_TOOL for t in tools):
        target.default_options["tools"] = [*tools, read_tool]
    return target

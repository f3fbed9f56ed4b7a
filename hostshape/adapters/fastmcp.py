"""hostshape for people who write the MCP server: a FastMCP middleware that shapes every tool result before it
leaves the server, and registers the retrieval tool ``hostshape_read``.

Use (FastMCP 3.x with mcp 1.x, or FastMCP 4.x with mcp 2.x; the ``fastmcp`` package)::

    from fastmcp import FastMCP
    from hostshape import Policy
    from hostshape.adapters.fastmcp import HostshapeMiddleware

    mcp = FastMCP("my-server")
    mcp.add_middleware(HostshapeMiddleware(Policy(budget=4000)))

It fires inside the server, before any host sees the result, so a host's own limit (Claude Code's 25,000 tokens)
never triggers; every host gets the same budgeted text. Per-tool rules match the server's own tool names
(``server=`` in a rule matches ``HostshapeMiddleware(..., server="name")``).

- A successful result that fits the budget is returned as the tool made it. Anything larger becomes one text block
  holding the shaped text, plus, when the tool had structured output, a structured copy that fits the same budget
  (FastMCP's ``{"result": "<text>"}`` wrapper keeps its form), so clients that validate against the tool's
  ``outputSchema`` still accept string tools. The full original is saved to the spill store; ``hostshape_read``
  pages through it.
- A tool whose output schema a shaped result could not satisfy (typed records with required fields) is listed
  without it (``output_schemas="auto"``), because clients such as the mcp Python SDK reject results that do not
  match the listed schema.
- Error results (``is_error``, or a raised ``ToolError`` as the server would send its message) are shaped to the
  same budget and stay errors; a structured copy that is not a copy of the text is shaped beside it (the two fit
  the budget together). A multi-round-trip ask (FastMCP 4's ``InputRequiredToolResult``) passes through as it is;
  results of ``hostshape_read`` itself are not shaped again.
- Each listed tool declares ``_meta["anthropic/maxResultSizeChars"]`` for its budget when that budget's text can
  pass Claude Code's 50,000-character threshold, so Claude Code shows such a result whole instead of persisting it
  to a file behind a 2,000-character preview (docs/hosts.md); a tool's own value is kept.
- ``hostshape_read`` is injected with FastMCP's ``ToolInjectionMiddleware`` mechanism (listed and called like the
  server's own tools, through every middleware); ``retrieval=False`` leaves it out.

Compared with FastMCP's ``ResponseLimitingMiddleware(max_size=N)``: that one counts serialised *bytes* of the
whole result and cuts the joined text at N bytes with a suffix, so JSON comes out invalid, records at the end are
lost with no way back, and a token budget can only be guessed. This middleware counts o200k tokens of the exact
text, keeps JSON valid, projects records to their informative fields before cutting, says what was cut and keeps
the rest retrievable. ``bench/proxy.py`` measures both on the same payloads (README, "Hosts without hooks").
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Literal

from hostshape.adapters._shared import require
from hostshape.adapters.claude_code import MAX_RESULT_SIZE_META, max_result_size_meta
from hostshape.policy import Policy
from hostshape.wayback.retrieve import RETRIEVAL_DESCRIPTION, RETRIEVAL_TOOL, read

__all__ = ["FIRES", "HOST", "INTERCEPTION_POINT", "HostshapeMiddleware", "retrieval_tool"]

HOST = "FastMCP server (middleware)"
INTERCEPTION_POINT = "FastMCP.add_middleware(HostshapeMiddleware(policy))"
FIRES = "inside the server, before every host"

_EXTRA = "fastmcp"
_log = logging.getLogger("hostshape.adapters.fastmcp")


def retrieval_tool(policy: Policy | None = None) -> Any:
    """The ``hostshape_read`` tool as a FastMCP ``Tool`` reading with ``policy``. Never raises."""
    require(_EXTRA, "fastmcp")
    from fastmcp.tools import Tool
    from mcp.types import ToolAnnotations

    read_policy = (policy if policy is not None else Policy()).replace(retrieval_tool=RETRIEVAL_TOOL)

    def hostshape_read(
        handle: str, query: str = "", cursor: str = "", section: str = "", lines: str = "", grep: str = ""
    ) -> str:
        return read(
            handle,
            query=query or None,
            cursor=cursor or None,
            section=section or None,
            lines=lines or None,
            grep=grep or None,
            policy=read_policy,
        )

    return Tool.from_function(
        hostshape_read,
        name=RETRIEVAL_TOOL,
        description=RETRIEVAL_DESCRIPTION,
        output_schema=None,
        annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False),
    )


def HostshapeMiddleware(
    policy: Policy | None = None,
    *,
    retrieval: bool = True,
    server: str | None = None,
    output_schemas: Literal["auto", "keep"] = "auto",
) -> Any:
    """A FastMCP middleware that shapes every successful tool result to ``policy`` (see the module docstring).

    ``server`` names this server for rules with ``server=``. ``output_schemas="auto"`` lists a tool without its
    output schema when a shaped result could not satisfy it (``hostshape.proxy.always_satisfied``), so clients that
    validate results accept shaped ones; ``"keep"`` lists every schema as the tool declares it. Raises ImportError
    naming the extra when ``fastmcp`` is missing."""
    require(_EXTRA, "fastmcp")
    if output_schemas not in ("auto", "keep"):
        raise ValueError(f"output_schemas must be auto or keep, not {output_schemas!r}")
    return _middleware_class()(policy if policy is not None else Policy(), retrieval, server, output_schemas)


def _listed(tool: Any, policy: Policy, server: str | None, output_schemas: str) -> Any:
    """A listed FastMCP ``Tool`` with the declared result size added and, under ``"auto"``, an output schema that a
    shaped result could not satisfy left out."""
    from hostshape.proxy import always_satisfied

    update: dict[str, Any] = {}
    meta = dict(tool.meta or {})
    declared = {} if MAX_RESULT_SIZE_META in meta else max_result_size_meta(policy.budget_for(tool.name, server))
    if declared:
        update["meta"] = {**meta, **declared}
    if output_schemas == "auto" and tool.output_schema is not None and not always_satisfied(tool.output_schema):
        update["output_schema"] = None
    return tool.model_copy(update=update) if update else tool


@lru_cache(maxsize=1)
def _middleware_class() -> type:
    import anyio
    from fastmcp.exceptions import ToolError
    from fastmcp.server.middleware.tool_injection import ToolInjectionMiddleware
    from fastmcp.tools import base
    from fastmcp.tools.base import ToolResult
    from mcp.types import TextContent

    from hostshape.proxy import shape_mcp_result

    # FastMCP 4.2 fastmcp/tools/base.py:297: a multi-round-trip leg's ask, a ToolResult subclass with no content that
    # the wire handler answers from `.input_required`; it is not a tool result to shape. Absent in FastMCP 3.x.
    passed_as_is: tuple[type, ...] = tuple(
        getattr(base, name) for name in ("InputRequiredToolResult",) if hasattr(base, name)
    )

    class _HostshapeMiddleware(ToolInjectionMiddleware):
        """Shapes tool results to a token budget; injects ``hostshape_read``."""

        def __init__(self, policy: Policy, retrieval: bool, server: str | None, output_schemas: str) -> None:
            self.output_schemas = output_schemas
            self.policy = policy.replace(retrieval_tool=RETRIEVAL_TOOL) if retrieval else policy
            self.server = server
            super().__init__(tools=[retrieval_tool(self.policy)] if retrieval else [])

        async def on_list_tools(self, context: Any, call_next: Any) -> Any:
            # A shaped result cannot satisfy every output schema (projection drops fields typed records require),
            # and clients such as the mcp Python SDK reject results that do not match: list those tools without it.
            # Each tool also declares the size of a result within its budget to Claude Code (claude_code.py,
            # MAX_RESULT_SIZE_META), so a large budget's result is shown whole, not persisted to a file.
            return [_listed(t, self.policy, self.server, self.output_schemas) for t in await call_next(context)]

        async def on_call_tool(self, context: Any, call_next: Any) -> Any:
            # fastmcp 3.4.11 fastmcp/server/middleware/middleware.py: on_call_tool wraps the tool run and returns
            # its ToolResult; the server converts it to a CallToolResult afterwards (tools/base.py to_mcp_result).
            # A failing tool raises ToolError through this chain (server/server.py:1405-1436); the low-level server
            # then sends str(error) as an isError result, so that message is what gets shaped.
            name = str(getattr(context.message, "name", ""))
            if name == RETRIEVAL_TOOL:
                return await call_next(context)
            args = getattr(context.message, "arguments", None)
            try:
                result = await call_next(context)
            except ToolError as error:
                failed = ToolResult(content=[TextContent(type="text", text=str(error))], is_error=True)
                shaped_error = await self._shape_or_none(failed, name, args)
                if shaped_error is None:
                    raise
                return shaped_error
            if not isinstance(result, ToolResult) or isinstance(result, passed_as_is):
                return result
            shaped = await self._shape_or_none(result, name, args)
            return result if shaped is None else shaped

        async def _shape_or_none(self, result: Any, name: str, args: Mapping[str, Any] | None) -> Any:
            """``result`` shaped to the policy as a new ToolResult, or None when it is left as it is."""
            try:
                shaped = await anyio.to_thread.run_sync(lambda: self._shape(result, name, args))
            except Exception:  # noqa: BLE001 - never fail the tool call because of hostshape
                _log.exception("hostshape could not shape the result of %s; passing it through", name)
                return None
            if shaped is None:
                return None
            text, structured = shaped
            # A meta dict makes FastMCP 3.x return a CallToolResult as is (tools/base.py, to_mcp_result), the same
            # way ResponseLimitingMiddleware does, instead of re-deriving content from the structured copy.
            return ToolResult(
                content=[TextContent(type="text", text=text)],
                structured_content=structured,
                meta=dict(result.meta or {}),
                is_error=bool(result.is_error),
            )

        def _shape(self, result: Any, name: str, args: Mapping[str, Any] | None) -> tuple[str, Any] | None:
            raw: dict[str, Any] = {
                "content": [
                    block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content
                ],
                "isError": bool(result.is_error),
            }
            if result.structured_content is not None:
                raw["structuredContent"] = result.structured_content
            return shape_mcp_result(raw, self.policy, tool=name, server=self.server, args=dict(args) if args else None)

    _HostshapeMiddleware.__name__ = _HostshapeMiddleware.__qualname__ = "HostshapeMiddleware"
    return _HostshapeMiddleware

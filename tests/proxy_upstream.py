"""A stdio MCP server for the proxy tests: the example server's tools plus misbehaving ones.

Run as ``python tests/proxy_upstream.py``. Besides every tool of ``hostshape.examples.mcp_server``:
``crash()`` exits the process mid-call, ``hang(seconds)`` blocks the whole process (no answer, not even to ping),
``garble()`` writes a line that is not JSON-RPC to stdout and then blocks, ``progress(steps, delay)`` reports
progress and logs a message before answering, ``counter()`` answers with how many calls this process served (so a
test can see a restart), ``roots()`` asks the client for its roots, ``env(name)`` reads the environment,
``typed_pulls()`` returns typed records (an output schema with required fields that a shaped result cannot
satisfy), ``sample(who, secret, wait)`` asks the client for a completion about ``who``'s secret (after ``wait``
seconds) and answers with it. Answered below the tool layer: ``rpc_error(code, size)`` answers with a JSON-RPC
error, ``split_structured()`` with a short text and a large structured copy that is not a copy of it,
``big_error()`` with a large ``isError`` result. With ``HOSTSHAPE_TEST_OWN_READ=1`` the server also has a tool named
``hostshape_read`` that answers with a large result. tools/list is paginated, four tools a page, as some real
servers do.
"""

from __future__ import annotations

import json
import os
import sys
import time
from importlib.metadata import version
from typing import Any

import anyio
from mcp import types
from pydantic import BaseModel

from hostshape.examples import payload_text
from hostshape.examples.mcp_server import server

# Run by the proxy with the environment the client gave it, which may not put this checkout first on the path:
# this server uses nothing of hostshape beyond the example server.
MCP2 = version("mcp").split(".")[0] == "2"
if MCP2:
    from mcp.server.mcpserver import Context
    from mcp.shared.exceptions import MCPError
else:
    from mcp.server.fastmcp import Context
    from mcp.shared.exceptions import McpError

PAGE = 4
_WIRE = os.dup(1)  # the JSON-RPC pipe itself: mcp 2's stdio server diverts fd 1 to stderr (mcp/server/stdio.py:87)
_calls = {"n": 0}


@server.tool()
def crash() -> str:
    """Exits the server process in the middle of the call."""
    os._exit(3)


@server.tool()
def hang(seconds: float = 60.0) -> str:
    """Blocks the whole server process for `seconds` (it answers nothing, not even a ping)."""
    time.sleep(seconds)
    return "woke up"


@server.tool()
def garble() -> str:
    """Writes a line that is not JSON-RPC to stdout, then blocks."""
    os.write(_WIRE, b"<html>502 Bad Gateway</html>\n")
    time.sleep(60)
    return "unreachable"


@server.tool()
async def progress(ctx: Context, steps: int = 3, delay: float = 0.05) -> str:
    """Reports `steps` progress notifications and one log message, then answers."""
    await ctx.info("working")
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
        await anyio.sleep(delay)
    return "finished"


@server.tool()
async def roots(ctx: Context) -> str:
    """The client's roots, asked of the client (a server-to-client request)."""
    listed = await ctx.session.list_roots()
    return " ".join(str(root.uri) for root in listed.roots)


@server.tool()
def env(name: str) -> str:
    """The value of one environment variable in the server process."""
    return os.environ.get(name, "<unset>")


class Pull(BaseModel):
    number: int
    title: str
    html_url: str
    body: str | None


@server.tool()
def typed_pulls() -> list[Pull]:
    """The recorded pull requests as typed records (an output schema with required fields)."""
    return [Pull(**{k: p.get(k) for k in Pull.model_fields}) for p in json.loads(payload_text("gh_pulls_list.json"))]


@server.tool()
async def sample(ctx: Context, who: str, secret: str, wait: float = 0.0) -> str:
    """Asks the client's model to summarise `who`'s private notes (a sampling request), answers with its reply."""
    await anyio.sleep(wait)
    reply = await ctx.session.create_message(
        messages=[
            types.SamplingMessage(
                role="user",
                content=types.TextContent(type="text", text=f"Summarise the private notes of {who}: {secret}"),
            )
        ],
        max_tokens=50,
    )
    return reply.content.text if isinstance(reply.content, types.TextContent) else str(reply.content)


if os.environ.get("HOSTSHAPE_TEST_OWN_READ") == "1":

    @server.tool(name="hostshape_read", structured_output=False)
    def own_read(handle: str = "") -> str:
        """The upstream's own tool that happens to be named hostshape_read."""
        return payload_text("gh_pulls_list.json")


@server.tool()
def counter() -> str:
    """How many calls this process has served, this one included."""
    _calls["n"] += 1
    return f"call {_calls['n']} of process {os.getpid()}"


_RAW = {"rpc_error", "split_structured", "big_error"}


def _listing(everything: list[Any], cursor: str | None) -> Any:
    """One page of the tools (PAGE a page), the tools answered below the tool layer on the last."""
    start = int(cursor) if cursor else 0
    page = everything[start : start + PAGE]
    after = start + PAGE
    if after < len(everything):
        return types.ListToolsResult(tools=page, nextCursor=str(after))
    schema = {"type": "object", "properties": {"code": {"type": "integer"}, "size": {"type": "integer"}}}
    raw = [types.Tool(name=n, description=f"{n} (answered below the tool layer)", inputSchema=schema) for n in _RAW]
    return types.ListToolsResult(tools=[*page, *sorted(raw, key=lambda t: t.name)])


def _raw(name: str, args: dict[str, Any]) -> Any:
    """The tools answered below FastMCP's tool layer (which would turn their answers into ordinary results);
    None for the others."""
    if name == "rpc_error":
        message = "upstream failure " + payload_text("gh_pulls_list.json")[: int(args.get("size", 100))]
        code = int(args.get("code", -32000))
        raise MCPError(code, message) if MCP2 else McpError(types.ErrorData(code=code, message=message))
    pulls = json.loads(payload_text("gh_pulls_list.json"))
    if name == "split_structured":
        text = types.TextContent(type="text", text="Found 30 pull requests.")
        return types.CallToolResult(content=[text], structuredContent={"pulls": pulls})
    if name == "big_error":
        text = types.TextContent(type="text", text=json.dumps({"error": "validation failed", "items": pulls}))
        return types.CallToolResult(content=[text], isError=True)
    return None


if MCP2:  # handlers of (ctx, params) by method (mcp/server/lowlevel/server.py:484)
    _low = server._lowlevel_server
    _list_entry = _low.get_request_handler("tools/list")
    _call_entry = _low.get_request_handler("tools/call")

    async def _list_v2(ctx: Any, params: Any) -> Any:
        result = await _list_entry.handler(ctx, params)
        return _listing(result.tools, params.cursor if params else None)

    async def _call_v2(ctx: Any, params: Any) -> Any:
        raw = _raw(params.name, params.arguments or {})
        return raw if raw is not None else await _call_entry.handler(ctx, params)

    _low.add_request_handler("tools/list", _list_entry.params_type, _list_v2)
    _low.add_request_handler("tools/call", _call_entry.params_type, _call_v2)
else:  # handlers by request type
    _handlers = server._mcp_server.request_handlers
    _list_all = _handlers[types.ListToolsRequest]
    _call = _handlers[types.CallToolRequest]

    async def _list_v1(request: types.ListToolsRequest | None) -> types.ServerResult:
        result = await _list_all(request)
        if request is None:  # the server's own tool cache asks for everything (mcp/server/lowlevel/server.py)
            return result
        return types.ServerResult(_listing(result.root.tools, request.params.cursor if request.params else None))

    async def _call_v1(request: types.CallToolRequest) -> types.ServerResult:
        raw = _raw(request.params.name, request.params.arguments or {})
        return types.ServerResult(raw) if raw is not None else await _call(request)

    _handlers[types.ListToolsRequest] = _list_v1
    _handlers[types.CallToolRequest] = _call_v1

if __name__ == "__main__":
    if sys.argv[1:2] == ["--sse"]:  # serve the legacy HTTP+SSE transport on 127.0.0.1:<port> instead of stdio
        if MCP2:
            server.run("sse", port=int(sys.argv[2]))
        else:
            server.settings.port = int(sys.argv[2])
            server.run("sse")
    else:
        server.run("stdio")

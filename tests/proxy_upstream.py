"""A stdio MCP server for the proxy tests: the example server's tools plus misbehaving ones.

Run as ``python tests/proxy_upstream.py``. Besides every tool of ``hostshape.examples.mcp_server``:
``crash()`` exits the process mid-call, ``hang(seconds)`` blocks the whole process (no answer, not even to ping),
``garble()`` writes a line that is not JSON-RPC to stdout and then blocks, ``progress(steps, delay)`` reports
progress and logs a message before answering, ``counter()`` answers with how many calls this process served (so a
test can see a restart), ``roots()`` asks the client for its roots, ``env(name)`` reads the environment,
``typed_pulls()`` returns typed records (an output schema with required fields that a shaped result cannot
satisfy). tools/list is paginated, four tools a page, as some real servers do.
"""

from __future__ import annotations

import json
import os
import sys
import time

import anyio
from mcp import types
from mcp.server.fastmcp import Context
from pydantic import BaseModel

from hostshape.examples import payload_text
from hostshape.examples.mcp_server import server

PAGE = 4
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
    sys.stdout.buffer.write(b"<html>502 Bad Gateway</html>\n")
    sys.stdout.buffer.flush()
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
def counter() -> str:
    """How many calls this process has served, this one included."""
    _calls["n"] += 1
    return f"call {_calls['n']} of process {os.getpid()}"


_list_all = server._mcp_server.request_handlers[types.ListToolsRequest]


async def _paged(request: types.ListToolsRequest | None) -> types.ServerResult:
    result = await _list_all(request)
    if request is None:  # the server's own tool cache asks for everything (mcp/server/lowlevel/server.py)
        return result
    everything = result.root.tools
    start = int(request.params.cursor) if request.params and request.params.cursor else 0
    page = everything[start : start + PAGE]
    after = start + PAGE
    cursor = str(after) if after < len(everything) else None
    return types.ServerResult(types.ListToolsResult(tools=page, nextCursor=cursor))


server._mcp_server.request_handlers[types.ListToolsRequest] = _paged

if __name__ == "__main__":
    if sys.argv[1:2] == ["--sse"]:  # serve the legacy HTTP+SSE transport on 127.0.0.1:<port> instead of stdio
        server.settings.port = int(sys.argv[2])
        server.run("sse")
    else:
        server.run("stdio")

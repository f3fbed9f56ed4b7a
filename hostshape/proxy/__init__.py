"""``hostshape proxy``: an MCP server in front of one upstream MCP server that shapes every successful tool result.

For hosts with no result hook (Claude Desktop, Cursor, VS Code, Windsurf, Zed, Gemini CLI, Goose, agents in other
languages): the host starts ``hostshape proxy -- <the server's command>`` instead of the server. The proxy fires
*before* the host, so a host limit such as Claude Code's 25,000-token MAX_MCP_OUTPUT_TOKENS never triggers.

Built on the ``mcp`` SDK, 1.x or 2.x (``sdk``, ``server_v1``, ``server_v2``): a low-level ``Server`` downstream whose
request handlers forward each request unchanged to a ``ClientSession`` upstream. What passes through untouched:
tools/list (with its cursor; ``hostshape_read`` is appended to the last page), resources, resource templates, prompts,
completion, logging level, subscriptions, every upstream notification, progress (per request), cancellation (a
cancelled downstream request sends ``notifications/cancelled`` upstream), JSON-RPC errors and ``isError`` results.
Each client session has an upstream session of its own (over ``--http``, one upstream process or connection per client
session, at most ``MAX_SESSIONS`` at once): the upstream's requests (sampling, elicitation, roots), notifications,
cursors and subscriptions reach only the client they belong to. Only a successful ``tools/call`` result is reshaped by
``hostshape.shape`` under the policy (per-tool rules match the upstream's tool names; ``--server NAME`` sets the
server name rules may match).

Faults of the upstream never take the proxy down: a crashed upstream answers the calls in flight with a clear error
and is restarted (stdio) or reconnected (HTTP) on the next request; a call that gets no answer within ``timeout``
seconds gets an error, and an upstream that then fails a ping is restarted; malformed JSON-RPC from the upstream
fails the calls in flight with an error that quotes it.

Usage::

    hostshape proxy [--policy FILE] [--budget N] -- npx -y @some/server ...
    hostshape proxy --url https://example.com/mcp --header "Authorization=Bearer ..."
    hostshape proxy --http 127.0.0.1:8765 -- python -m my_server       # serve streamable HTTP at /mcp
"""

from __future__ import annotations

from hostshape.proxy.cli import main
from hostshape.proxy.sdk import require_mcp
from hostshape.proxy.server import OutputSchemas, Proxy, retrieval_tool_definition, serve_http, serve_stdio
from hostshape.proxy.shaping import always_satisfied, shape_call_result, shape_mcp_result
from hostshape.proxy.upstream import Link, Upstream, UpstreamError

__all__ = [
    "FIRES",
    "HOST",
    "INTERCEPTION_POINT",
    "Link",
    "OutputSchemas",
    "Proxy",
    "Upstream",
    "UpstreamError",
    "always_satisfied",
    "main",
    "require_mcp",
    "retrieval_tool_definition",
    "serve_http",
    "serve_stdio",
    "shape_call_result",
    "shape_mcp_result",
]

HOST = "any MCP host, via proxy"
INTERCEPTION_POINT = "hostshape proxy -- <server command>"
FIRES = "before the host (its own limit never triggers)"

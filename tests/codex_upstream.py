"""A stdio MCP server for the Codex hook tests: ``summary()`` answers a 5-token text beside 300 structured records
(a ``structuredContent`` that is not a copy of the text). Run as ``python tests/codex_upstream.py``."""

from __future__ import annotations

from mcp import types
from mcp.server.fastmcp import FastMCP

server = FastMCP("corpus", log_level="WARNING")
RECORDS = [
    {"id": i, "title": f"issue {i} about the parser", "state": "open", "body": "steps " * 12} for i in range(300)
]


@server.tool(structured_output=False)
def summary() -> types.CallToolResult:
    """Says how many issues it found; the issues themselves are in structuredContent."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text="Found 300 issues.")], structuredContent={"issues": RECORDS}
    )


if __name__ == "__main__":
    server.run()

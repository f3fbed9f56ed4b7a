"""A stdio MCP server that serves the recorded example payloads, as a real tool server would.

Run it with ``python -m hostshape.examples.mcp_server``. Tools:

- one ``-> str`` tool per payload (``list_pull_requests``, ``read_readme``, ...): FastMCP sends the text as a
  content block and again as ``structuredContent = {"result": text}``, as real FastMCP servers do;
- ``fetch(name)`` the same for any payload file, ``fetch_plain(name)`` as content blocks only (no structured copy),
  ``fetch_structured(name)`` the parsed JSON as structured content; ``fetch_list(name)`` a JSON list parsed, which
  FastMCP sends as its JSON text and ``{"result": [...]}``;
- ``fetch_blocks(name, parts)`` a JSON list payload as ``parts`` text blocks, each the JSON of one slice;
  ``fetch_with_image(name)`` the payload's text block followed by a one-pixel PNG image block;
- ``fetch_error(name)`` the payload's text as an ``isError`` result (a tool's own error report, passed through);
- ``fail(message)`` raises, so the host receives an ``isError`` result; ``image()`` returns a PNG image block.

Requires the ``mcp`` package (installed with any hostshape framework extra), 1.x or 2.x: mcp 2 renamed
``mcp.server.fastmcp.FastMCP`` to ``mcp.server.mcpserver.MCPServer`` (mcp 2.3.0, mcp/server/fastmcp.py); the
decorators and ``run("stdio")`` used here are the same in both.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from mcp.types import BlobResourceContents, CallToolResult, EmbeddedResource, ImageContent, TextContent

try:
    from mcp.server.mcpserver import MCPServer as FastMCP  # mcp >= 2
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:
    from mcp.server.fastmcp import FastMCP  # mcp 1.x
    from mcp.server.fastmcp.exceptions import ToolError

from hostshape.examples import TOOLS, payload_text

server = FastMCP("corpus", log_level="WARNING")

# The smallest valid PNG: one transparent pixel.
_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def _register_payload_tool(tool_name: str, file_name: str) -> None:
    def tool() -> str:
        return payload_text(file_name)

    tool.__name__ = tool_name
    tool.__doc__ = f"Returns the recorded payload {file_name}."
    server.tool(name=tool_name)(tool)


for _tool_name, _file_name in TOOLS.items():
    _register_payload_tool(_tool_name, _file_name)


@server.tool()
def fetch(name: str) -> str:
    """Returns one recorded payload by file name (structured copy as {"result": text})."""
    return payload_text(name)


@server.tool(structured_output=False)
def fetch_plain(name: str) -> str:
    """Returns one recorded payload by file name, as content blocks only."""
    return payload_text(name)


@server.tool()
def fetch_structured(name: str) -> dict[str, Any]:
    """Returns one recorded JSON payload parsed, as structured content ({"result": value} for lists)."""
    value = json.loads(payload_text(name))
    return value if isinstance(value, dict) else {"result": value}


@server.tool()
def fetch_list(name: str) -> list[Any]:
    """Returns one recorded JSON list payload parsed: FastMCP sends its JSON as text and ``{"result": [...]}`` as
    the structured copy (a list output schema is not an object)."""
    value = json.loads(payload_text(name))
    return value if isinstance(value, list) else [value]


@server.tool(structured_output=False)
def fetch_blocks(name: str, parts: int = 2) -> list[TextContent]:
    """Returns one recorded JSON list payload as ``parts`` text blocks, each the JSON of one slice of the list."""
    value = json.loads(payload_text(name))
    items = value if isinstance(value, list) else [value]
    size = max(1, -(-len(items) // max(1, parts)))
    return [
        TextContent(type="text", text=json.dumps(items[at : at + size], indent=2)) for at in range(0, len(items), size)
    ]


@server.tool(structured_output=False)
def fetch_with_image(name: str) -> list[TextContent | ImageContent]:
    """Returns one recorded payload's text block, then a one-pixel PNG image block."""
    return [
        TextContent(type="text", text=payload_text(name)),
        ImageContent(type="image", data=base64.b64encode(_PNG).decode(), mimeType="image/png"),
    ]


@server.tool()
def fetch_error(name: str) -> CallToolResult:
    """Returns one recorded payload's text as an error result (``isError``), as an API's error body."""
    return CallToolResult(content=[TextContent(type="text", text=payload_text(name))], isError=True)


@server.tool()
def fail(message: str = "upstream API returned 502") -> str:
    """Always fails: the host receives an isError result."""
    raise ToolError(message)  # an anticipated failure: mcp 2 shows the model its message, as mcp 1 shows any


@server.tool(structured_output=False)
def image() -> ImageContent:
    """Returns a one-pixel PNG image block."""
    return ImageContent(type="image", data=base64.b64encode(_PNG).decode(), mimeType="image/png")


@server.tool(structured_output=False)
def mixed(times: int = 1) -> list[TextContent | ImageContent | EmbeddedResource]:
    """Returns a short text (``times`` times over), a one-pixel PNG image block and a 30-byte embedded binary
    resource."""
    blob = BlobResourceContents(
        uri="blob://sample",  # type: ignore[arg-type]
        mimeType="application/octet-stream",
        blob=base64.b64encode(bytes(range(30))).decode(),
    )
    return [
        TextContent(
            type="text", text=" ".join(["Build 4812 passed; the screenshot and the raw log are attached."] * times)
        ),
        ImageContent(type="image", data=base64.b64encode(_PNG).decode(), mimeType="image/png"),
        EmbeddedResource(type="resource", resource=blob),
    ]


if __name__ == "__main__":
    server.run("stdio")

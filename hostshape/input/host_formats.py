"""The host formats the core reads besides MCP's own content blocks, each with the host that sends it.

An adapter should hand the core MCP content blocks; these are the shapes hosts hand over as they are, kept in one
place so that ``unwrap`` knows MCP and this list, and a new format is one entry here:

- OpenAI Agents SDK: a ``function_call_output`` item whose ``output`` is text or a list of ``input_text`` /
  ``input_image`` / ``input_file`` parts (agents/items.py:918-922, 1006-1011, openai-agents 0.24); model output
  parts are ``output_text``.
- FastMCP: a tool's structured result wrapped as ``{"result": X}`` when its output schema is not an object
  (fastmcp/tools/base.py:363-368, fastmcp 3.4.11); Claude Code hands the same wrapper over as a JSON string.
"""

from __future__ import annotations

from typing import Any

from hostshape.input.parse import MISSING

TEXT_PARTS = ("input_text", "output_text")  # OpenAI text parts, read like MCP "text" blocks
IMAGE_PARTS = ("input_image",)  # OpenAI image parts (``image_url``), read like MCP "image" blocks
OTHER_PARTS = ("input_file",)
PARTS = TEXT_PARTS + IMAGE_PARTS + OTHER_PARTS


def function_call_output(raw: dict[str, Any]) -> Any:
    """The ``output`` of an OpenAI ``function_call_output`` item, else MISSING."""
    if raw.get("type") == "function_call_output" and "output" in raw:
        return raw["output"]
    return MISSING


def result_wrapper(value: Any) -> Any:
    """X for FastMCP's ``{"result": X}``, else MISSING."""
    if isinstance(value, dict) and len(value) == 1 and "result" in value:
        return value["result"]
    return MISSING

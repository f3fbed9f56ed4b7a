"""The input contract: the one value the core shapes, built by the adapters (or by ``host_forms`` at ``shape``'s door).

A ``ToolResult`` is a tool result as MCP defines it (MCP spec 2025-06-18, ``CallToolResult``): content blocks of
each MCP kind, the structured copy, the error flag, and the name of the host wrapper it came in, if any. It knows
no host: an adapter turns its host's objects into it (``hostshape.input.host_forms`` has the decoders every host
shares), and ``hostshape.input.payload`` reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hostshape.input.parse import MISSING


@dataclass(frozen=True)
class TextBlock:
    """MCP ``text`` content."""

    text: str


@dataclass(frozen=True)
class ImageBlock:
    """MCP ``image`` content: base64 ``data``. ``source`` is the block as the host handed it, shown as its JSON
    when the policy keeps binary (``Policy.keep_binary``)."""

    data: str
    mime_type: str
    source: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class AudioBlock:
    """MCP ``audio`` content: base64 ``data``; ``source`` as for ``ImageBlock``."""

    data: str
    mime_type: str
    source: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ResourceBlock:
    """MCP embedded ``resource``: its ``text``, or else its base64 ``blob``; ``source`` as for ``ImageBlock``."""

    uri: str | None
    mime_type: str
    text: str | None = None
    blob: str = ""
    source: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ResourceLinkBlock:
    """MCP ``resource_link`` content: a link the model may follow, shown as its name and URI."""

    uri: str
    name: str = ""


@dataclass(frozen=True)
class BinaryBlock:
    """Bytes handed to ``shape`` that are not text (no host sends this: a user or the CLI does), of ``size`` bytes."""

    mime_type: str
    size: int


@dataclass(frozen=True)
class UnreadBlock:
    """A content block of no MCP kind, which the core cannot read: shown as the JSON of ``value`` and named in the
    envelope by ``label`` (its type, or its keys)."""

    label: str
    value: Any


Block = TextBlock | ImageBlock | AudioBlock | ResourceBlock | ResourceLinkBlock | BinaryBlock | UnreadBlock


@dataclass(frozen=True)
class ToolResult:
    """One tool result, as the core reads it.

    - ``content``: the content blocks, in order.
    - ``structured``: the structured copy (MCP ``structuredContent``), with any host wrapper removed; MISSING when
      there is none. A plain JSON value handed to ``shape`` is a result with this copy alone; a str here is read
      as text.
    - ``is_error``: MCP ``isError``; an error's text is never parsed as JSON.
    - ``wrapper``: the host wrapper the result came in (``"fastmcp result"``, ``"openai function_call_output"``),
      None when there was none: informational, the core reads the value inside.
    - ``notes``: what building this value replaced (invalid UTF-8 bytes), said in the envelope.
    """

    content: tuple[Block, ...] = ()
    structured: Any = MISSING
    is_error: bool = False
    wrapper: str | None = None
    notes: tuple[str, ...] = ()

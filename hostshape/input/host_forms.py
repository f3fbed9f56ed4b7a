"""What hosts and users hand over, decoded once into the input contract (``hostshape.input.contract.ToolResult``).

``tool_result(raw)`` is ``shape``'s door, and what an adapter calls on its host's objects. It reads:

- MCP: ``CallToolResult`` objects (anything with ``model_dump``) and their dumps (``content`` blocks of each MCP
  kind, ``structuredContent``, ``isError``), a bare list of content blocks, ``{"structuredContent": X}``;
- OpenAI Agents SDK: a ``function_call_output`` item whose ``output`` is text or a list of ``input_text`` /
  ``input_image`` / ``input_file`` parts (agents/items.py:918-922, 1006-1011, openai-agents 0.24); model output
  parts are ``output_text``;
- FastMCP: a tool's structured result wrapped as ``{"result": X}`` when its output schema is not an object
  (fastmcp/tools/base.py:363-368, fastmcp 3.4.11), as the structured copy, as a dict, or as a text whose JSON is
  that wrapper (Claude Code hands it over so); a text that is the JSON of a list of content blocks;
- plain values from users and the CLI: str, bytes (UTF-8, UTF-16/32 by byte-order mark, else a binary block),
  JSON values (the structured copy alone); anything else as its ``str``.

A dict is read as a host form only when it has no members beyond that form's, and a list as content blocks only
when each carries its kind's content: anything else (an API response with a ``content`` list, records with a
``"type": "text"`` field) is the tool's own data, shown whole. A content block of no known kind becomes an
``UnreadBlock``, which the envelope names. Never raises for malformed input. A new host format is one decoder
here, or in its adapter.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from hostshape.input.contract import (
    AudioBlock,
    BinaryBlock,
    Block,
    ImageBlock,
    ResourceBlock,
    ResourceLinkBlock,
    TextBlock,
    ToolResult,
    UnreadBlock,
)
from hostshape.input.parse import MISSING, parse_json

FASTMCP = "fastmcp result"
OPENAI = "openai function_call_output"
TEXT_PARTS = ("input_text", "output_text")  # OpenAI text parts, read like MCP "text" blocks
IMAGE_PARTS = ("input_image",)  # OpenAI image parts (``image_url``), read like MCP "image" blocks
OTHER_PARTS = ("input_file",)  # OpenAI file parts, which the core cannot read
_CONTRACT_BLOCKS = (TextBlock, ImageBlock, AudioBlock, ResourceBlock, ResourceLinkBlock, BinaryBlock, UnreadBlock)
# What a block of each kind carries (MCP spec 2025-06-18 content types; OpenAI input parts, openai/types/responses/
# response_input_*): a dict with the type but not this is a tool's own record ({"type": "text", "label": ...}).
_BLOCK_FIELDS: dict[str, tuple[str, ...]] = {
    "text": ("text",),
    "input_text": ("text",),
    "output_text": ("text",),
    "image": ("data",),
    "audio": ("data",),
    "input_image": ("image_url", "file_id"),
    "resource": ("resource",),
    "resource_link": ("uri",),
    "input_file": ("file_data", "file_id", "file_url"),
}
# The members of the host forms read from a dict: anything more and the dict is a tool's own data (an API response
# that happens to have "content" or a "type"), shown whole. mcp 1.x/2.x CallToolResult dumps (2.x adds resultType);
# OpenAI's FunctionCallOutput item (openai/types/responses/response_input_item.py:169).
_RESULT_KEYS = frozenset(
    {"content", "structuredContent", "structured_content", "isError", "is_error", "_meta", "meta", "resultType"}
)
_OUTPUT_ITEM_KEYS = frozenset({"type", "output", "id", "call_id", "caller", "name", "namespace", "status"})
_BLOCK_TYPES = frozenset(_BLOCK_FIELDS)
_MAGIC = {b"\x89PNG": "image/png", b"\xff\xd8\xff": "image/jpeg", b"GIF8": "image/gif", b"%PDF": "application/pdf"}
# Texts worth parsing at the door: FastMCP's wrapper, and a list whose first member opens with a block's type.
_WRAPPER_TEXT = re.compile(r'[\ufeff \t\r\n]*\{\s*"result"\s*:')
_BLOCKS_TEXT = re.compile(r'[\ufeff \t\r\n]*\[\s*\{\s*"type"\s*:\s*"([a-z_]+)"')


def tool_result(raw: Any) -> ToolResult:
    """``raw`` as the input contract (see the module docstring for what is read); a ToolResult is returned as is."""
    if isinstance(raw, ToolResult):
        return raw
    if hasattr(raw, "model_dump") and callable(raw.model_dump):
        raw = _model_dump(raw)
    if isinstance(raw, (bytes, bytearray, memoryview)):
        return _from_bytes(bytes(raw))
    if isinstance(raw, str):
        return text_result(raw)
    if isinstance(raw, dict):
        return _from_dict(raw)
    if isinstance(raw, (list, tuple)):
        if raw and all(_is_block(b) for b in raw):
            return blocks_result(list(raw))
        return ToolResult(structured=list(raw))
    if raw is None or isinstance(raw, (bool, int, float)):
        return ToolResult(structured=raw)
    return text_result(str(raw))


def text_result(text: str, *, is_error: bool = False) -> ToolResult:
    """One text block (a text that is FastMCP's wrapper, or a list of content blocks, as what it holds)."""
    return blocks_result([{"type": "text", "text": text}], is_error=is_error)


def joined_result(text: str, *, is_error: bool = False) -> ToolResult:
    """A host's one string of text blocks joined by newlines (Agno, CrewAI) as those blocks again: a text that is
    several JSON documents one after another, one of them over several lines (so not JSON lines, whose one-line
    records are one block's rows), is read as one text block per document, each the text between two of the
    newlines the host put in, as ``shape`` reads the MCP blocks; any other text is one block (as ``text_result``)."""
    documents = _documents(text) if not is_error else None
    return blocks_result([{"type": "text", "text": t} for t in (documents or [text])], is_error=is_error)


_DECODER = json.JSONDecoder()
_JOINED_OPEN = re.compile(r"[ \t\r\n]*[\[{]")


def _documents(text: str) -> list[str] | None:
    """The texts of the JSON documents ``text`` joins, split at one newline after each; None unless it is two or
    more objects or arrays, one of which spans several lines, separated by blanks holding a newline."""
    if not _JOINED_OPEN.match(text) or parse_json(text).ok:
        return None
    documents: list[str] = []
    start = at = 0
    end = len(text)
    while at < end:
        opened = _JOINED_OPEN.match(text, at)
        if opened is None:
            return None
        try:
            _, at = _DECODER.raw_decode(text, opened.end() - 1)
        except (ValueError, RecursionError):
            return None
        gap = at
        while at < end and text[at] in " \t\r\n":
            at += 1
        newline = text.find("\n", gap, at)
        if at < end and newline < 0:
            return None  # two documents on one line: not blocks a host joined
        cut = newline if at < end else end
        documents.append(text[start:cut])
        start = cut + 1
    if len(documents) < 2 or all("\n" not in d.strip() for d in documents):
        return None
    return documents


def blocks_result(blocks: list[Any], *, structured: Any = MISSING, is_error: bool = False) -> ToolResult:
    """Content blocks (the contract's, MCP objects or dumps, OpenAI parts), with their structured copy and error
    flag."""
    content = tuple(_block(b) for b in blocks)
    structured, wrapper = _unwrapped_structured(structured)
    if is_error or not all(isinstance(b, (TextBlock, ImageBlock, AudioBlock)) for b in content):
        return ToolResult(content, structured, is_error, wrapper)
    texts = [b.text for b in content if isinstance(b, TextBlock)]
    if not texts:
        return ToolResult(content, structured, is_error, wrapper)
    media = tuple(b for b in content if not isinstance(b, TextBlock))
    inner, inner_wrapper = _text_value("\n".join(t for t in texts if t), blocks_too=structured is MISSING)
    if inner is MISSING:
        return ToolResult(content, structured, is_error, wrapper)
    if isinstance(inner, ToolResult):  # the text was the JSON of content blocks
        return ToolResult(inner.content + media, inner.structured, inner.is_error, inner.wrapper)
    if isinstance(inner, str):
        return ToolResult((TextBlock(inner), *media), structured, wrapper=inner_wrapper)
    return ToolResult(media, inner, wrapper=inner_wrapper)  # the text's data stands in for the structured copy


def _text_value(text: str, *, blocks_too: bool) -> tuple[Any, str | None]:
    """What a text that is a host form holds: the str or data inside FastMCP's wrapper (a wrapped text unwrapped
    again, in a loop), a ToolResult for the JSON of content blocks; MISSING when the text is no host form."""
    found: Any = MISSING
    wrapper = None
    while True:
        if _WRAPPER_TEXT.match(text):
            parsed = parse_json(text)
            if parsed.ok and _is_wrapper(parsed.value):
                found, wrapper = parsed.value["result"], FASTMCP
                if isinstance(found, str):
                    text = found
                    continue
                return found, wrapper
        elif blocks_too and (start := _BLOCKS_TEXT.match(text)) and start.group(1) in _BLOCK_TYPES:
            parsed = parse_json(text)
            if parsed.ok and isinstance(parsed.value, list) and all(_is_block(b) for b in parsed.value):
                return blocks_result(parsed.value), wrapper
        return found, wrapper


def _unwrapped_structured(structured: Any) -> tuple[Any, str | None]:
    """The structured copy without FastMCP's wrapper (one level, as FastMCP makes it); None is no copy."""
    if structured is None:
        return MISSING, None
    if _is_wrapper(structured):
        inner = structured["result"]
        if isinstance(inner, str):
            text, wrapper = _text_value(inner, blocks_too=False)
            if text is not MISSING:
                return text, wrapper
        return inner, FASTMCP
    return structured, None


def _from_dict(raw: dict[str, Any]) -> ToolResult:
    if raw.get("type") == "function_call_output" and "output" in raw and raw.keys() <= _OUTPUT_ITEM_KEYS:
        output = tool_result(raw["output"])
        return dataclasses.replace(output, wrapper=output.wrapper or OPENAI)
    content = raw.get("content")
    if (
        isinstance(content, list)
        and raw.keys() <= _RESULT_KEYS
        and ("isError" in raw or "structuredContent" in raw or _all_blocks(content))
    ):
        return blocks_result(
            content, structured=raw.get("structuredContent", MISSING), is_error=bool(raw.get("isError"))
        )
    if len(raw) == 1 and "structuredContent" in raw:
        return tool_result(raw["structuredContent"])
    if not _is_wrapper(raw):
        return ToolResult(structured=raw)
    inner: Any = raw
    while _is_wrapper(inner):  # {"result": {"result": ...}}: unwrapped in a loop, however deep, never by recursion
        inner = inner["result"]
    result = text_result(inner) if isinstance(inner, str) else tool_result(inner)
    return dataclasses.replace(result, wrapper=result.wrapper or FASTMCP)


def _block(block: Any) -> Block:
    """One content block as the contract's block (a contract block as it is); a block of no known kind as an
    UnreadBlock."""
    if isinstance(block, _CONTRACT_BLOCKS):
        return block
    if hasattr(block, "model_dump"):
        block = _model_dump(block)
    if not isinstance(block, dict):
        return TextBlock(str(block))
    kind = block.get("type")
    if (kind == "text" or kind in TEXT_PARTS) and isinstance(block.get("text", ""), str):
        return TextBlock(block.get("text", ""))
    if kind in ("image", "audio", *IMAGE_PARTS):
        data = block.get("data") or block.get("image_url") or ""
        mime = block.get("mimeType") or block.get("mime_type") or "application/octet-stream"
        media = AudioBlock if kind == "audio" else ImageBlock
        return media(data if isinstance(data, str) else "", str(mime), block)
    if kind == "resource" and isinstance(block.get("resource") or {}, dict):
        resource = block.get("resource") or {}
        uri = resource.get("uri")
        mime = resource.get("mimeType") or resource.get("mime_type") or "application/octet-stream"
        if "text" in resource:
            return ResourceBlock(uri, str(mime), text=str(resource["text"]), source=resource)
        blob = resource.get("blob", "")
        return ResourceBlock(uri, str(mime), blob=blob if isinstance(blob, str) else "", source=resource)
    if kind == "resource_link":
        return ResourceLinkBlock(f"{block.get('uri', '')}", f"{block.get('name') or block.get('title') or ''}")
    label = _text_of(kind)[:40] if kind is not None else "keys " + ",".join(map(_text_of, block))[:40]
    return UnreadBlock(label, block)


def _from_bytes(data: bytes) -> ToolResult:
    mime = _sniff(data)
    if mime is None:
        wide = _wide_text(data)
        if wide is not None:
            return text_result(wide)
        try:
            return text_result(data.decode("utf-8"))
        except UnicodeDecodeError:
            if b"\x00" not in data[:4096]:
                replaced = text_result(data.decode("utf-8", "replace"))
                return dataclasses.replace(replaced, notes=("invalid UTF-8 bytes replaced with U+FFFD",))
    return ToolResult((BinaryBlock(mime or "application/octet-stream", len(data)),))


_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def _wide_text(data: bytes) -> str | None:
    """The text of UTF-16 or UTF-32 bytes, known by their byte-order mark or, for JSON, by the zero bytes around
    its first characters (RFC 4627 section 3, ``json.detect_encoding``); None for anything else."""
    codec = next((codec for bom, codec in _WIDE_BOMS if data.startswith(bom)), None)
    start = 0
    if codec is not None:
        start = 4 if codec.startswith("utf-32") else 2
    elif len(data) >= 4 and b"\x00" in data[:4]:
        detected = json.detect_encoding(data[:4])
        codec = detected if detected.startswith(("utf-16-", "utf-32-")) else None
        # JSON starts with a structural ASCII character: the detection is trusted only then
        if codec is None or data[start:4].decode(codec, "ignore").lstrip()[:1] not in ("{", "[", '"'):
            return None
    else:
        return None
    try:
        return data[start:].decode(codec)
    except UnicodeDecodeError:
        return None


def _sniff(data: bytes) -> str | None:
    return next((mime for magic, mime in _MAGIC.items() if data.startswith(magic)), None)


def _model_dump(obj: Any) -> Any:
    """A pydantic model as plain data; ``mode="json"`` refuses lone surrogates, so fall back to python mode."""
    try:
        return obj.model_dump(mode="json", exclude_none=True, by_alias=True)
    except (UnicodeError, ValueError, TypeError):
        return obj.model_dump(exclude_none=True, by_alias=True)


def _is_wrapper(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and "result" in value


def _is_block(item: Any) -> bool:
    """Whether ``item`` is a content block: a block object, or a dict with a block's type and what that kind
    carries (a record with ``"type": "text"`` and no text is data)."""
    if hasattr(item, "model_dump") and hasattr(item, "type"):
        return getattr(item, "type", None) in _BLOCK_TYPES
    kind = item.get("type") if isinstance(item, dict) else None
    if not isinstance(kind, str) or kind not in _BLOCK_FIELDS:
        return False
    if kind == "resource" or (kind == "image" and "data" not in item):  # Anthropic's image block has a source
        return isinstance(item.get("resource" if kind == "resource" else "source"), dict)
    return any(isinstance(item.get(f), str) for f in _BLOCK_FIELDS[kind])


def _all_blocks(items: list[Any]) -> bool:
    return bool(items) and all(_is_block(b) for b in items)


def _text_of(value: Any) -> str:
    try:
        return str(value)
    except Exception:  # noqa: BLE001 - an object whose __str__ raises
        return f"<unprintable {type(value).__name__}>"

"""Whatever a host hands over, reduced to one payload: the text a model would read, or the data behind it.

Accepted: str, bytes, dict, list, MCP ``CallToolResult`` objects and their dict dumps (text, image, audio,
embedded resource and resource_link blocks; ``structuredContent``; ``isError``), lists of MCP content blocks, any
pydantic model with ``model_dump``, and the host formats listed in ``hostshape.input.host_formats`` (OpenAI
``function_call_output`` items and parts, FastMCP's ``{"result": X}`` wrapper). A block of no known type is shown
as its JSON and named in the envelope.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import orjson

from hostshape.input.host_formats import IMAGE_PARTS, PARTS, TEXT_PARTS, function_call_output, result_wrapper
from hostshape.input.parse import MISSING, first_char, looks_like_json, may_be_json, parse_json
from hostshape.output.render import MAX_DEPTH, NotExact, dumps, safe_text

_BLOCK_TYPES = frozenset({"text", "image", "audio", "resource", "resource_link", *PARTS})
_MAGIC = {b"\x89PNG": "image/png", b"\xff\xd8\xff": "image/jpeg", b"GIF8": "image/gif", b"%PDF": "application/pdf"}


@dataclass
class Payload:
    """One tool result, unwrapped.

    ``value`` holds parsed JSON data when there is any (else MISSING); ``text`` is what the host would show the
    model without hostshape (for data: its compact JSON), with labelled placeholders for binary content. ``notes``
    says what unwrapping replaced; ``opaque`` is set when that includes binary a host would not pass to a model
    natively (raw bytes, resource blobs), as opposed to image and audio blocks, which hosts send as media.
    """

    text: str
    value: Any = MISSING
    is_error: bool = False
    notes: list[str] = field(default_factory=list)
    parse_error: str | None = None
    looks_json: bool = False
    opaque: bool = False

    @property
    def is_data(self) -> bool:
        return self.value is not MISSING


def unwrap(raw: Any, *, keep_binary: bool = False) -> Payload:
    """Reduce ``raw`` to a Payload. Never raises for malformed input; unknown objects become their ``str``."""
    return _Unwrapper(keep_binary).payload(raw)


@dataclass
class _Unwrapper:
    keep_binary: bool

    def payload(self, raw: Any) -> Payload:
        if hasattr(raw, "model_dump") and callable(raw.model_dump):
            raw = _model_dump(raw)
        if isinstance(raw, (bytes, bytearray, memoryview)):
            return self._bytes(bytes(raw))
        if isinstance(raw, str):
            return self._text(raw)
        if isinstance(raw, dict):
            return self._dict(raw)
        if isinstance(raw, (list, tuple)):
            if raw and all(_is_block(b) for b in raw):
                return self._blocks(list(raw), structured=MISSING, is_error=False)
            return _data(list(raw))
        if raw is None or isinstance(raw, (bool, int, float)):
            return _data(raw)
        return self._text(str(raw))

    def _bytes(self, data: bytes) -> Payload:
        mime = _sniff(data)
        if mime is None:
            wide = _wide_text(data)
            if wide is not None:
                return self._text(wide)
            try:
                return self._text(data.decode("utf-8"))
            except UnicodeDecodeError:
                if b"\x00" not in data[:4096]:
                    payload = self._text(data.decode("utf-8", "replace"))
                    payload.notes.append("invalid UTF-8 bytes replaced with U+FFFD")
                    return payload
        return Payload(
            text=_placeholder("binary", mime or "application/octet-stream", len(data)),
            notes=["binary content replaced by a placeholder"],
            opaque=True,
        )

    def _text(self, text: str) -> Payload:
        text = safe_text(text)
        if not may_be_json(text):
            return Payload(text=text)
        parsed = parse_json(text)  # JSON-ness is decided by parsing the whole text, never by a prefix
        if not parsed.ok and not looks_like_json(text) and first_char(text) != '"':
            return Payload(text=text)  # prose that happens to start like a number or a literal
        if not parsed.ok:
            return Payload(text=text, parse_error=parsed.error, looks_json=parsed.looks_json)
        inner = result_wrapper(parsed.value)
        if inner is not MISSING:
            if isinstance(inner, str):
                return self._text(inner)
            return _data(inner)
        if isinstance(parsed.value, list) and parsed.value and all(_is_block(b) for b in parsed.value):
            return self._blocks(parsed.value, structured=MISSING, is_error=False)
        return Payload(text=text, value=parsed.value, looks_json=True)

    def _dict(self, raw: dict[str, Any]) -> Payload:
        output = function_call_output(raw)
        if output is not MISSING:
            return self.payload(output)
        content = raw.get("content")
        if isinstance(content, list) and ("isError" in raw or "structuredContent" in raw or _all_blocks(content)):
            return self._blocks(
                content, structured=raw.get("structuredContent", MISSING), is_error=bool(raw.get("isError"))
            )
        if len(raw) == 1 and "structuredContent" in raw:
            return self.payload(raw["structuredContent"])
        inner = result_wrapper(raw)
        if inner is MISSING:
            return _data(raw)
        while (deeper := result_wrapper(inner)) is not MISSING:  # {"result": {"result": ...}}: unwrapped in a
            inner = deeper  # loop, however deep, never by recursion
        return self._text(inner) if isinstance(inner, str) else self.payload(inner)

    def _blocks(self, blocks: list[Any], *, structured: Any, is_error: bool) -> Payload:
        texts: list[str] = []
        media: list[str] = []  # labelled placeholders of binary blocks
        blobs: list[bool] = []  # per placeholder: a resource blob, which no host passes to a model natively
        unknown: list[str] = []  # blocks of no MCP type, shown as their JSON and named in the envelope
        for block in blocks:
            if hasattr(block, "model_dump"):
                block = _model_dump(block)
            self._block_text(block, texts, media, blobs, unknown)
        texts = [safe_text(t) for t in texts]  # every block's text made encodable, once
        opaque = any(blobs)
        payload = self._blocks_payload(texts, media, opaque, structured=structured, is_error=is_error)
        if unknown:
            payload.notes.append(_unknown_note(unknown))
        return payload

    def _blocks_payload(
        self, texts: list[str], media: list[str], opaque: bool, *, structured: Any, is_error: bool
    ) -> Payload:
        if structured is not MISSING and structured is not None:
            payload = self._structured(structured, texts, media, opaque, is_error=is_error)
            if payload is not None:
                return payload
        if is_error or (media and not any(texts)):  # an error message, or media alone: never parsed as JSON
            return _with_notes(Payload(text="\n".join(t for t in texts + media if t), is_error=is_error), media, opaque)
        if media:  # text beside media: the text is the payload; the media's labels travel as notes
            return _with_notes(self._text("\n".join(t for t in texts if t)), media, opaque)
        return _json_per_block(texts) or self._text("\n".join(t for t in texts if t))

    def _structured(
        self, structured: Any, texts: list[str], media: list[str], opaque: bool, *, is_error: bool
    ) -> Payload | None:
        """The payload of the structured copy when it mirrors the text blocks or stands alone; else None (the
        text blocks are the payload)."""
        mirrored = _mirror(structured, texts)
        if mirrored is not MISSING and not is_error:
            return _with_notes(self.payload(mirrored), media, opaque)
        if not any(texts) and not media:
            payload = self.payload(structured)
            payload.is_error = is_error
            return payload
        return None

    def _block_text(
        self, block: Any, texts: list[str], media: list[str], blobs: list[bool], unknown: list[str]
    ) -> None:
        """Append the block's text to ``texts``, or its labelled placeholder to ``media`` (and to ``blobs``
        whether it stands for a resource blob); a block of no known type is shown as its JSON and its type (or
        keys) added to ``unknown``."""
        if not isinstance(block, dict):
            texts.append(str(block))
            return
        kind = block.get("type")
        if kind == "text" or kind in TEXT_PARTS:
            texts.append(str(block.get("text", "")))
        elif kind in ("image", "audio", *IMAGE_PARTS):
            self._binary_block(block, kind, block.get("data") or block.get("image_url") or "", texts, media, blobs)
        elif kind == "resource":
            resource = block.get("resource") or {}
            if "text" in resource:
                texts.append(str(resource["text"]))
            else:
                self._binary_block(resource, "resource", resource.get("blob", ""), texts, media, blobs)
        elif kind == "resource_link":
            name = block.get("name") or block.get("title") or ""
            texts.append(f"[resource link: {name} {block.get('uri', '')}]".replace("  ", " "))
        else:
            texts.append(dumps(block))
            unknown.append(_text_of(kind)[:40] if kind is not None else "keys " + ",".join(map(_text_of, block))[:40])

    def _binary_block(
        self, block: dict[str, Any], kind: str, data: Any, texts: list[str], media: list[str], blobs: list[bool]
    ) -> None:
        if self.keep_binary:
            texts.append(dumps(block))
            return
        mime = block.get("mimeType") or block.get("mime_type") or "application/octet-stream"
        label = _placeholder("image" if kind in IMAGE_PARTS else kind, mime, _decoded_size(data))
        uri = block.get("uri")
        media.append(f"{label[:-1]}, {uri}]" if uri else label)
        blobs.append(kind == "resource")


def _json_per_block(texts: list[str]) -> Payload | None:
    """Several text blocks that are each a JSON document, as the list of their values; else None."""
    if len(texts) < 2 or not all(looks_like_json(t) for t in texts):
        return None
    values = [parse_json(t) for t in texts]
    if not all(v.ok for v in values):
        return None
    return Payload(text="\n".join(texts), value=[v.value for v in values], looks_json=True)


def _unknown_note(unknown: list[str]) -> str:
    """The envelope's note for content blocks the core cannot read (an adapter should have turned them into MCP
    blocks): how many, and their types or keys."""
    kinds = sorted(set(unknown))
    shown = "; ".join(safe_text(k) for k in kinds[:4]) + (f"; +{len(kinds) - 4} more" if len(kinds) > 4 else "")
    return f"{len(unknown)} content block(s) of no MCP type ({shown}) shown as their JSON"


def _with_notes(payload: Payload, notes: list[str], opaque: bool) -> Payload:
    """``payload`` noting the placeholders that replaced binary blocks; ``opaque`` when one was a resource blob."""
    payload.notes.extend(notes)
    payload.opaque = payload.opaque or opaque
    return payload


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


def _model_dump(obj: Any) -> Any:
    """A pydantic model as plain data; ``mode="json"`` refuses lone surrogates, so fall back to python mode."""
    try:
        return obj.model_dump(mode="json", exclude_none=True, by_alias=True)
    except (UnicodeError, ValueError, TypeError):
        return obj.model_dump(exclude_none=True, by_alias=True)


def _data(value: Any) -> Payload:
    """Structured data; its text is its compact JSON. Keys that are not strings (``{1: ...}``, ``None``, tuples)
    become their JSON or ``str`` form first, so that no later step meets them. Data JSON cannot carry exactly
    (nesting past the renderer's depth, integers too long to print) is never passed through as it is."""
    try:
        return Payload(text=orjson.dumps(value).decode(), value=value, looks_json=True)
    except (TypeError, orjson.JSONEncodeError, RecursionError):
        pass  # non-string keys, long integers, deep nesting, objects JSON has no form for: the slow path
    value, renamed, labelled = json_ready(value)
    notes = [f"{renamed:,} non-string keys shown as strings"] if renamed else []
    if labelled:
        notes.append(f"{labelled:,} integers too long to print replaced by labels")
    try:
        return Payload(text=dumps(value, exact=True), value=value, looks_json=True, notes=notes, opaque=bool(labelled))
    except NotExact as exc:
        return Payload(
            text=dumps(value),
            value=value,
            looks_json=True,
            opaque=True,
            notes=[*notes, f"not renderable as is ({exc}); such values are replaced by labels"],
        )


_MAX_INT_BITS = 13_000  # about 3,900 digits: as render.py, below CPython's 4,300-digit printing limit
_MAX_KEY_DEPTH = MAX_DEPTH + 50  # deeper members are left to the renderer, which labels them past MAX_DEPTH


def json_ready(value: Any) -> tuple[Any, int, int]:
    """``value`` with every object key a string, and integers too long for Python to print replaced by the label
    the renderer gives them, so that no later step meets either; and how many keys and integers were replaced.
    Unchanged containers are returned as they are (no copy); a key that would collide with another gets its
    type's name appended."""
    renamed = labelled = 0

    def convert(item: Any, depth: int) -> Any:
        nonlocal renamed, labelled
        if isinstance(item, int) and not isinstance(item, bool) and item.bit_length() > _MAX_INT_BITS:
            labelled += 1
            return dumps(item)[1:-1]  # the renderer's label: "[integer of about N digits omitted]"
        if depth > _MAX_KEY_DEPTH:
            return item
        if isinstance(item, dict):
            out: dict[str, Any] = {}
            changed = False
            for key, member in item.items():
                new_member = convert(member, depth + 1)
                changed = changed or new_member is not member
                if not isinstance(key, str):
                    key = _key_text(key, out, item)
                    renamed += 1
                    changed = True
                out[key] = new_member
            return out if changed else item
        if isinstance(item, (list, tuple)):
            members = [convert(m, depth + 1) for m in item]
            if any(new is not old for new, old in zip(members, item, strict=False)):
                return members
            return item
        return item

    return convert(value, 0), renamed, labelled


def _key_text(key: Any, taken: dict[str, Any], original: dict[Any, Any]) -> str:
    """A string for a non-string ``key``: its JSON form (``1``, ``null``, ``true``), else its ``str``; with its
    type's name, then a number, appended when that string is already a key."""
    if key is None or isinstance(key, (bool, int, float)):
        try:
            text = dumps(key)
        except Exception:  # noqa: BLE001 - an integer too long to print
            text = dumps(str(key)[:40])
    else:
        text = dumps(key) if isinstance(key, (tuple, list)) else _text_of(key)
    text = safe_text(text)
    candidate, number = text, 1
    while candidate in taken or candidate in original:
        candidate = f"{text} ({type(key).__name__})" if number == 1 else f"{text} ({type(key).__name__} {number})"
        number += 1
    return candidate


def _text_of(value: Any) -> str:
    try:
        return str(value)
    except Exception:  # noqa: BLE001 - an object whose __str__ raises
        return f"<unprintable {type(value).__name__}>"


def _is_block(item: Any) -> bool:
    if hasattr(item, "model_dump") and hasattr(item, "type"):
        return getattr(item, "type", None) in _BLOCK_TYPES
    return isinstance(item, dict) and item.get("type") in _BLOCK_TYPES


def _all_blocks(items: list[Any]) -> bool:
    return bool(items) and all(_is_block(b) for b in items)


def _mirror(structured: Any, texts: list[str]) -> Any:
    """The structured value when the text blocks say the same thing (one payload, not two), else MISSING."""
    joined = "\n".join(texts)
    inner = result_wrapper(structured)
    if isinstance(inner, str) and inner == joined:
        return inner
    candidate = inner if inner is not MISSING else structured
    if not texts:
        return candidate
    parsed = [parse_json(t) for t in texts] if all(looks_like_json(t) for t in texts) else []
    if parsed and all(p.ok for p in parsed):
        values = [p.value for p in parsed]
        if values == [candidate] or values == candidate or values == [structured]:
            return candidate
    return MISSING


def _sniff(data: bytes) -> str | None:
    for magic, mime in _MAGIC.items():
        if data.startswith(magic):
            return mime
    return None


def _decoded_size(data: Any) -> int:
    """Approximate decoded size of base64 text (exact for unpadded input)."""
    return len(data) * 3 // 4 if isinstance(data, str) else 0


def _placeholder(kind: str, mime: str, size: int) -> str:
    return f"[{kind} omitted: {mime}, {size:,} bytes]"

"""The input contract read into one payload: the text a model would read, or the data behind it.

``payload_of`` takes a ``hostshape.input.contract.ToolResult`` (adapters build it; ``hostshape.input.host_forms``
decodes whatever else reaches ``shape``) and knows no host: text blocks are joined (several JSON text blocks are
the list of their values), a structured copy that mirrors the text, or stands alone, is the data, media and blobs
become labelled placeholders, and a block the core cannot read is shown as its JSON and named in the envelope.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

import orjson

from hostshape.input import contract
from hostshape.input.lossless import losses, minify
from hostshape.input.parse import MISSING, first_char, looks_like_json, may_be_json, parse_json
from hostshape.output.render import MAX_DEPTH, ORJSON_INTS, NotExact, WideInt, dumps, safe_text, wide


@dataclass
class Payload:
    """One tool result, unwrapped.

    ``value`` holds parsed JSON data when there is any (else MISSING); ``text`` is what the host would show the
    model without hostshape (for data: its compact JSON), with labelled placeholders for binary content. ``notes``
    says what unwrapping replaced; ``opaque`` is set when that includes binary a host would not pass to a model
    natively (raw bytes, resource blobs), as opposed to image and audio blocks, which hosts send as media.
    ``strict`` says ``text`` is strict JSON (no ``NaN`` or ``Infinity``) and ``value`` what parsing it gives.
    """

    text: str
    value: Any = MISSING
    is_error: bool = False
    notes: list[str] = field(default_factory=list)
    parse_error: str | None = None
    looks_json: bool = False
    opaque: bool = False
    strict: bool = False
    copy_envelope: Any = MISSING  # the top-level _hostshape member of a structured copy not read (beside the text)
    canonical: str | None = None  # several JSON blocks: the compact JSON of ``value`` when it is theirs exactly
    lost: tuple[str, ...] = ()  # several JSON blocks: what parsing them changed, as notes (``losses`` per block)

    @property
    def is_data(self) -> bool:
        return self.value is not MISSING


def payload_of(result: contract.ToolResult, *, keep_binary: bool = False) -> Payload:
    """Read ``result`` into a Payload; ``keep_binary`` shows binary blocks as their JSON instead of placeholders.
    Never raises for malformed content."""
    blocks = _Blocks(keep_binary)
    for block in result.content:
        blocks.add(block)
    blocks.texts = [safe_text(t if isinstance(t, str) else dumps(t.value)) for t in blocks.texts]
    payload = blocks.payload(result.structured, is_error=result.is_error)
    if blocks.unknown:
        payload.notes.append(_unknown_note(blocks.unknown))
    payload.notes.extend(result.notes)
    return payload


@dataclass(frozen=True)
class _Json:
    """A value shown as its JSON text."""

    value: Any


@dataclass
class _Blocks:
    """The content blocks read so far: their texts, and the placeholders (with their notes) of binary blocks."""

    keep_binary: bool
    texts: list[Any] = field(default_factory=list)  # str, or _Json (shown as its JSON); all str once read
    media: list[str] = field(default_factory=list)  # labelled placeholders of binary blocks
    media_notes: list[str] = field(default_factory=list)  # what the envelope says of each
    opaque: bool = False  # a placeholder stands for binary no host passes to a model natively
    unknown: list[str] = field(default_factory=list)  # labels of blocks of no MCP kind, shown as their JSON
    links: int = 0  # resource links, each shown as hostshape's own line (``[resource link: name uri]``)

    def add(self, block: contract.Block) -> None:
        if isinstance(block, contract.TextBlock):
            self.texts.append(block.text)
        elif isinstance(block, (contract.ImageBlock, contract.AudioBlock)):
            kind = "audio" if isinstance(block, contract.AudioBlock) else "image"
            self._binary(block.source, kind, block.mime_type, block.data, None, {"type": kind})
        elif isinstance(block, contract.ResourceBlock):
            if block.text is not None:
                self.texts.append(block.text)
            else:
                self._binary(block.source, "resource", block.mime_type, block.blob, block.uri, {"uri": block.uri})
        elif isinstance(block, contract.ResourceLinkBlock):
            self.texts.append(f"[resource link: {block.name} {block.uri}]".replace("  ", " "))
            self.links += 1
        elif isinstance(block, contract.BinaryBlock):
            self.media.append(_placeholder("binary", block.mime_type, block.size))
            self.media_notes.append("binary content replaced by a placeholder")
            self.opaque = True
        else:
            self.texts.append(_Json(block.value))
            self.unknown.append(block.label)

    def _binary(self, source: Any, kind: str, mime: str, data: str, uri: str | None, bare: dict[str, Any]) -> None:
        if self.keep_binary:
            self.texts.append(_Json(source if source is not None else {**bare, "mimeType": mime}))
            return
        label = _placeholder(kind, mime, _decoded_size(data))
        placeholder = f"{label[:-1]}, {uri}]" if uri else label
        self.media.append(placeholder)
        self.media_notes.append(placeholder)
        self.opaque = self.opaque or kind == "resource"

    def payload(self, structured: Any, *, is_error: bool) -> Payload:
        if structured is not MISSING:
            payload = self._structured(structured, is_error=is_error)
            if payload is not None:
                return payload
            payload = self._text_payload(is_error=is_error)
            if isinstance(structured, dict):
                payload.copy_envelope = structured.get("_hostshape", MISSING)
            return payload
        return self._text_payload(is_error=is_error)

    def _text_payload(self, *, is_error: bool) -> Payload:
        """The payload of the text blocks (and media placeholders)."""
        texts, media = self.texts, self.media
        if is_error or (media and not any(texts)):  # an error message, or media alone: never parsed as JSON
            return self._noted(Payload(text="\n".join(t for t in texts + media if t), is_error=is_error))
        joined = "\n".join(t for t in texts if t)
        if self.links:  # a link's line starts like a JSON list: the text is read as text, never as broken JSON
            return self._noted(Payload(text=joined))
        if media:  # text beside media: the text is the payload; the media's labels travel as notes
            return self._noted(_text(joined))
        return _json_per_block(texts) or _text(joined)

    def _structured(self, structured: Any, *, is_error: bool) -> Payload | None:
        """The payload of the structured copy when it mirrors the text blocks or stands alone; else None (the
        text blocks are the payload)."""
        texts = self.texts
        if not is_error and _mirrors(structured, texts):
            return self._noted(_value(structured))
        if not any(texts) and not self.media:
            payload = _value(structured)
            payload.is_error = is_error
            return payload
        return None

    def _noted(self, payload: Payload) -> Payload:
        """``payload`` noting the placeholders that replaced binary blocks."""
        payload.notes.extend(self.media_notes)
        payload.opaque = payload.opaque or self.opaque
        return payload


def _value(value: Any) -> Payload:
    """A structured copy's payload: a str is read as text, anything else is data."""
    return _text(value) if isinstance(value, str) else _data(value)


def _text(text: str) -> Payload:
    text = safe_text(text)
    if not may_be_json(text):
        return Payload(text=text)
    parsed = parse_json(text)  # JSON-ness is decided by parsing the whole text, never by a prefix
    if not parsed.ok and not looks_like_json(text) and first_char(text) != '"':
        return Payload(text=text)  # prose that happens to start like a number or a literal
    if not parsed.ok:
        return Payload(text=text, parse_error=parsed.error, looks_json=parsed.looks_json)
    return Payload(text=text, value=parsed.value, looks_json=True, strict=parsed.strict)


def _json_per_block(texts: list[str]) -> Payload | None:
    """Several text blocks that are each a JSON document, as the list of their values; else None."""
    if len(texts) < 2 or not all(looks_like_json(t) for t in texts):
        return None
    values = [parse_json(t) for t in texts]
    if not all(v.ok for v in values):
        return None
    value = [v.value for v in values]
    canonical, lost = _canonical(texts, values)
    return Payload(text="\n".join(texts), value=value, looks_json=True, canonical=canonical, lost=lost)


def _canonical(texts: list[str], values: list[Any]) -> tuple[str, tuple[str, ...]]:
    """The compact JSON of the blocks' values, as one list, when each block reads strictly and loses nothing in
    parsing (the text a structured copy of that list has); else the list of the blocks minified, which is exact.
    Beside it, what parsing the blocks changed (each note once), which the answer must name."""
    renderings: list[bytes | None] = [None] * len(texts)
    if all(v.strict for v in values):
        with contextlib.suppress(TypeError, orjson.JSONEncodeError, RecursionError):
            renderings = [orjson.dumps(v.value) for v in values]
    lost = tuple(dict.fromkeys(note for t, r in zip(texts, renderings, strict=True) for note in losses(t, r)))
    if not lost and all(r is not None for r in renderings):
        return "[" + ",".join(r.decode("utf-8") for r in renderings if r is not None) + "]", ()
    return "[" + ",".join(minify(t) for t in texts) + "]", lost


def _unknown_note(unknown: list[str]) -> str:
    """The envelope's note for content blocks the core cannot read (an adapter should have turned them into MCP
    blocks): how many, and their types or keys."""
    kinds = sorted(set(unknown))
    shown = "; ".join(safe_text(k) for k in kinds[:4]) + (f"; +{len(kinds) - 4} more" if len(kinds) > 4 else "")
    return f"{len(unknown)} content block(s) of no MCP type ({shown}) shown as their JSON"


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
        text = dumps(value)  # every later step reads what the model is shown: its labels, at orjson's speed
        return Payload(
            text=text,
            value=parse_json(text).value,  # exact: orjson reads an integer past 64 bits as a rounded float
            looks_json=True,
            opaque=True,
            notes=[*notes, f"not renderable as is ({exc}); such values are replaced by labels"],
        )


_MAX_INT_BITS = 13_000  # about 3,900 digits: as render.py, below CPython's 4,300-digit printing limit
_MAX_KEY_DEPTH = MAX_DEPTH + 50  # deeper members are left to the renderer, which labels them past MAX_DEPTH


def json_ready(value: Any) -> tuple[Any, int, int]:
    """``value`` with every object key a string, integers too long for Python to print replaced by the label the
    renderer gives them and integers past 64 bits made ``WideInt`` (written exactly at orjson's speed), so that
    no later step meets either; and how many keys and long integers were replaced. Unchanged containers are
    returned as they are (no copy); a key that would collide with another gets its type's name appended."""
    renamed = labelled = 0

    def convert(item: Any, depth: int) -> Any:
        nonlocal renamed, labelled
        if isinstance(item, int) and not isinstance(item, bool):
            if item.bit_length() > _MAX_INT_BITS:
                labelled += 1
                return dumps(item)[1:-1]  # the renderer's label: "[integer of about N digits omitted]"
            return item if type(item) is WideInt else wide(item)
        if depth > _MAX_KEY_DEPTH:
            return item
        if isinstance(item, dict):
            out: dict[str, Any] = {}
            changed = False
            for key, member in item.items():
                kind = type(member)  # a scalar orjson writes is told without a call
                leaf = kind in _LEAVES or (kind is int and member in ORJSON_INTS)
                new_member = member if leaf else convert(member, depth + 1)
                changed = changed or new_member is not member
                if not isinstance(key, str):
                    key = _key_text(key, out, item)
                    renamed += 1
                    changed = True
                out[key] = new_member
            return out if changed else item
        if isinstance(item, (list, tuple)):
            members = [
                m if type(m) in _LEAVES or (type(m) is int and m in ORJSON_INTS) else convert(m, depth + 1)
                for m in item
            ]
            if any(new is not old for new, old in zip(members, item, strict=False)):
                return members
            return item
        return item

    return convert(value, 0), renamed, labelled


_LEAVES = frozenset({str, float, bool, type(None)})  # scalars json_ready leaves as they are


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


def _mirrors(structured: Any, texts: list[str]) -> bool:
    """Whether the text blocks say what the structured copy says (one payload, not two): there are none, they are
    that str, or their JSON is that value (or the list of their values is)."""
    if not texts or (isinstance(structured, str) and structured == "\n".join(texts)):
        return True
    parsed = [parse_json(t) for t in texts] if all(looks_like_json(t) for t in texts) else []
    if parsed and all(p.ok for p in parsed):
        values = [p.value for p in parsed]
        return values == [structured] or values == structured
    return False


def _decoded_size(data: Any) -> int:
    """Approximate decoded size of base64 text (exact for unpadded input)."""
    return len(data) * 3 // 4 if isinstance(data, str) else 0


def _placeholder(kind: str, mime: str, size: int) -> str:
    return f"[{kind} omitted: {mime}, {size:,} bytes]"

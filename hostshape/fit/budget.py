"""The budget check (does this exact text fit, counted with the policy's tokenizer?) and the token estimate that
steers choices before the final text is counted."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from hostshape.policy import Policy
from hostshape.tokens import SURELY_OVER_CHARS_PER_TOKEN, counter

# Texts longer than this many characters per budget token are counted in chunks first. A chunk cut mid-word can
# count a few tokens more than the same span inside the whole text: hence the margin per chunk (rejecting a text
# that would just have fitted only means it gets shaped, and the shaped text fits too).
PROBE_CHARS_PER_TOKEN = 4
PROBE_MARGIN = 4
# ... and taken to be over once the tokens per character counted so far, spread over the whole text, come to this
# many times the limit (a text that dense at the start and nearly empty after it is shaped though it might fit).
PROBE_REJECT_FACTOR = 2
# Exact counts are remembered for the last few texts counted under one Limit (one shaping call), so that a text
# is tokenized once however many steps check it (the fit that chose it, then the pipeline's final cap).
REMEMBERED_COUNTS = 4
# The estimate's first measurement counts at most this many characters (a whole candidate when it is this short).
SAMPLE_CHARS = 8000
# A text longer than this is counted as the sum of its chunks, each remembered: the candidates of one fit share
# most of their text (the same records and rows, a count in the envelope changed), so each tokenizes what changed.
CHUNKED_CHARS = 4096
# Chunks end where every encoding of tokens.ENCODINGS ends a piece whatever follows and begins one whatever came
# before: two ASCII punctuation marks then a letter or digit (the marks are one run of the punctuation alternative,
# which stops at the letter; a single mark could lead the word that follows, two cannot). The counts of chunks
# cut there add up to the text's exact count, as BPE merges only within pieces.
_CUT = re.compile(r'[\[\]{}",:]{2}(?=[A-Za-z0-9])')
_CUT_EVERY = 32  # of those places, about one in this many ends a chunk (chosen by the text after it: the same
# text is cut at the same places wherever it sits in a candidate)
_REMEMBERED_CHUNKS = 8192


@dataclass(frozen=True)
class Limit:
    """A hard cap on one text: ``tokens`` (already divided by the safety factor) and optionally ``chars``."""

    tokens: int
    chars: int | None
    encoding_name: str
    _counted: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)
    _probed: list[tuple[str, list[int]]] = field(
        default_factory=list, init=False, repr=False, compare=False, hash=False
    )
    _chunks: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    @classmethod
    def of(cls, policy: Policy, budget: int) -> Limit:
        return cls(max(1, math.floor(budget / policy.safety_factor)), policy.max_chars, policy.encoding)

    def count(self, text: str) -> int:
        """Exact token count of ``text`` (tokenized once: the last few counts are remembered)."""
        known = self._counted.get(text)
        if known is None:
            known = self._chunked(text) if len(text) > CHUNKED_CHARS else counter(self.encoding_name).count(text)
            if len(self._counted) >= REMEMBERED_COUNTS:
                del self._counted[next(iter(self._counted))]
            self._counted[text] = known
        return known

    def _chunked(self, text: str) -> int:
        """Exact tokens of ``text``, as the sum of its chunks' (see ``_CUT``), each tokenized once per limit."""
        chunks, tokens = self._chunks, counter(self.encoding_name)
        if len(chunks) > _REMEMBERED_CHUNKS:
            chunks.clear()
        total, start = 0, 0
        for cut in _CUT.finditer(text):
            end = cut.end()
            if hash(text[end : end + 8]) % _CUT_EVERY or end - start < 64:
                continue
            chunk = text[start:end]
            known = chunks.get(chunk)
            if known is None:
                known = chunks[chunk] = tokens.count(chunk)
            total, start = total + known, end
        chunk = text[start:]
        known = chunks.get(chunk)
        if known is None:
            known = chunks[chunk] = tokens.count(chunk)
        return total + known

    def cheap_fit(self, text: str) -> bool:
        """True when ``text`` certainly fits without tokenizing: every BPE token covers at least one byte."""
        if self.chars is not None and len(text) > self.chars:
            return False
        return len(text) <= self.tokens and len(text.encode("utf-8", "surrogatepass")) <= self.tokens

    def fits(self, text: str) -> bool:
        """True when the exact ``text`` is within the limit."""
        if self.chars is not None and len(text) > self.chars:
            return False
        if self.cheap_fit(text):
            return True
        if len(text) > self.tokens * SURELY_OVER_CHARS_PER_TOKEN:
            return False  # see SURELY_OVER_CHARS_PER_TOKEN
        if len(text) <= self.tokens * PROBE_CHARS_PER_TOKEN:
            return self.count(text) <= self.tokens
        return self._fits_by_chunks(text)

    def _fits_by_chunks(self, text: str) -> bool:
        """Count a long text chunk by chunk and stop as soon as it is certainly over: rejecting a long input
        costs about one budget's worth of tokenizing, not the whole input."""
        step = max(256, self.tokens * PROBE_CHARS_PER_TOKEN // 2)
        total = 0
        for chunk_number, start in enumerate(range(0, len(text), step), 1):
            chunk = text[start : start + step]
            tokens = counter(self.encoding_name).encode_ordinary(chunk)
            if start == 0:
                self._probed[:] = [(chunk, tokens)]
            total += len(tokens)
            if total > self.tokens + PROBE_MARGIN * chunk_number:
                return False
            if total * len(text) > PROBE_REJECT_FACTOR * self.tokens * (start + step):
                return False  # at the density counted so far, the whole text runs far over: see PROBE_REJECT_FACTOR
        return self.count(text) <= self.tokens

    def tokenized_prefix(self, text: str) -> tuple[int, list[int]]:
        """``(n, tokens)``: the tokens of ``text[:n]`` where this limit already tokenized that start of ``text``
        (the first piece of a long text it rejected), else ``(0, [])``. Only for locating a cut: the tokens of a
        prefix are not an exact count of any other text."""
        for chunk, tokens in self._probed:
            if text.startswith(chunk):
                return len(chunk), list(tokens)
        return 0, []


def utf8_length(text: str) -> int:
    """Bytes of ``text`` in UTF-8; an ASCII text (the string knows it) is not encoded to tell."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


class TokenEstimate:
    """Tokens per UTF-8 byte of this payload's rendering, measured on the first candidate and refined by every
    exact count after: it steers the choices, and only the final text is counted exactly."""

    def __init__(self, limit: Limit) -> None:
        self.limit = limit
        self.value: float | None = None

    def estimate(self, text: str) -> int:
        size = utf8_length(text)
        if self.value is None:
            sample = text[: min(SAMPLE_CHARS, self.limit.tokens * 4)]
            self.value = self.limit.count(sample) / max(1, len(sample.encode("utf-8")))
        return int(size * self.value) + 1

    def learn(self, text: str, tokens: int) -> None:
        self.value = tokens / max(1, len(text.encode("utf-8")))

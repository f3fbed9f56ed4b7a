"""The budget check: does this exact text fit, counted with the policy's tokenizer?"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hostshape.policy import Policy
from hostshape.tokens import encoding


# The longest token of o200k_base and cl100k_base covers 128 bytes (checked in tests/test_tokens.py).
MAX_TOKEN_CHARS = 128


@dataclass(frozen=True)
class Limit:
    """A hard cap on one text: ``tokens`` (already divided by the safety factor) and optionally ``chars``."""

    tokens: int
    chars: int | None
    encoding_name: str

    @classmethod
    def of(cls, policy: Policy, budget: int) -> Limit:
        return cls(max(1, math.floor(budget / policy.safety_factor)), policy.max_chars, policy.encoding)

    def count(self, text: str) -> int:
        """Exact token count of ``text``."""
        return len(encoding(self.encoding_name).encode_ordinary(text))

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
        if len(text) > self.tokens * MAX_TOKEN_CHARS:
            return False  # cannot fit, and tokenizing megabytes to learn that is the cost to avoid
        return self.count(text) <= self.tokens

"""What the pipeline gives back: the exact text for the model, and how it got there."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property


@dataclass(frozen=True)
class Shaped:
    """The outcome of shaping one tool result.

    - ``text``: the exact text the model should read; its token count is ``tokens`` and never exceeds the budget
      when ``changed`` is true.
    - ``changed``: False means "leave the host's own result as it is": it already fits, or hostshape failed and
      the policy says fail open. Adapters then return nothing / the original.
    - ``is_json``: the text is a JSON document (true whenever the input was JSON).
    - ``bytes_before``: UTF-8 size of the unwrapped input; ``tokens`` counts ``text`` exactly.
    - ``truncated``: something was cut to meet the budget (as opposed to removed by projection alone).
    - ``strategy``: which path produced the text (``passthrough``, ``records``, ``index``, ``object``, ``text``,
      ``compact``, ``fault``, ``minimal``, ``empty`` for a result with no content, ``noted`` for one
      that fits, followed by hostshape's line saying its last line imitates hostshape's...).
    - ``handle`` / ``path``: where the full original was saved, when it was.
    - ``is_error``: the tool reported an error; ``fault``: hostshape's own failure, when there was one.
    """

    text: str
    changed: bool
    is_json: bool
    bytes_before: int
    budget: int
    truncated: bool
    strategy: str
    tool: str | None = None
    server: str | None = None
    handle: str | None = None
    path: str | None = None
    is_error: bool = False
    fault: str | None = None
    elapsed_ms: float = 0.0
    encoding: str = "o200k_base"
    input_text: str = field(default="", repr=False, compare=False)

    @cached_property
    def tokens_before(self) -> int:
        """Exact token count of the unwrapped input (tokenizes the whole input: for telemetry, not the hot path)."""
        from hostshape.tokens import count_tokens

        return count_tokens(self.input_text, self.encoding)

    @cached_property
    def tokens(self) -> int:
        """Exact token count of ``text`` in ``encoding`` (counted on first access: a result that fits by its byte
        length is never tokenized unless asked)."""
        from hostshape.tokens import count_tokens

        return count_tokens(self.text, self.encoding)

    def stats(self) -> dict[str, object]:
        """The statistics as plain data (for logs, ``--stats`` and metadata the model does not see)."""
        return {
            "tool": self.tool,
            "server": self.server,
            "bytes_before": self.bytes_before,
            "tokens_after": self.tokens,
            "budget": self.budget,
            "changed": self.changed,
            "truncated": self.truncated,
            "strategy": self.strategy,
            "handle": self.handle,
            "is_error": self.is_error,
            "fault": self.fault,
            "ms": round(self.elapsed_ms, 3),
        }

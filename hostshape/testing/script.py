"""The script every host's scripted model plays: call a first tool, then whatever ``next_call`` asks for given the
tool results read so far, then answer with a final text.

Each ``hostshape.testing.<host>.scripted_model(first, next_call=None, final_text="done")`` wraps one
:class:`Script` in that framework's own model interface; the model's ``received`` is the script's: the text of
every tool result, exactly as the model read it, in order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypedDict

from hostshape.testing import HostRun

Call = tuple[str, dict[str, Any]]
"""One tool call: the tool's name as the host offers it to the model, and its arguments."""

NextCall = Callable[[list[str]], "Call | None"]
"""Given every tool result's text read so far, the next call, or None to answer with the final text."""


class RunOptions(TypedDict, total=False):
    """The keywords every host's ``run(tool, *, policy, **options)`` reads; a host's own extras are its ``run``'s
    keywords. A host ignores the keywords it does not know, so one call can drive every host."""

    arguments: dict[str, Any] | None
    """The arguments of the first call (default: none)."""
    retrieval: bool
    """Whether the agent also gets ``hostshape_read`` (each host's ``run`` says its default)."""
    next_call: NextCall | None
    """After each tool result, the model's next call (:class:`Script`); default: it answers."""


def first_call(tool: str, options: RunOptions, prefix: str | None = None) -> Call:
    """The call a run's scripted model makes first: ``tool`` (``f"{prefix}_{tool}"`` on a host that prefixes its MCP
    tools' names) with ``options``' arguments."""
    return (f"{prefix}_{tool}" if prefix else tool, dict(options.get("arguments") or {}))


MAX_CALLS = 32
"""Calls after the first in one turn; then the model answers, whatever ``next_call`` says (a runaway script ends)."""


class Script:
    """One scripted conversation. Each model request calls :meth:`reply` with the tool results new in it.

    A request without new results starts a turn: the model calls ``first`` (None: it answers at once). After
    results, it calls ``next_call(received)`` until that returns None (or :data:`MAX_CALLS` calls), then answers
    ``final_text``. ``received`` holds every result's text in order, ``requests`` every request as the host gave it.
    """

    def __init__(self, first: Call | None, next_call: NextCall | None = None, final_text: str = "done") -> None:
        self.first = first
        self.next_call = next_call
        self.final_text = final_text
        self.received: list[str] = []
        self.requests: list[Any] = []
        self._calls_in_turn = 0

    def reply(self, request: Any, results: Sequence[str]) -> Call | None:
        """Record ``request`` and its new tool ``results``; the call to make next, or None to answer."""
        self.requests.append(request)
        if not results:
            self._calls_in_turn = 0
            return self.first
        self.received.extend(results)
        self._calls_in_turn += 1
        if self.next_call is None or self._calls_in_turn > MAX_CALLS:
            return None
        return self.next_call(list(self.received))

    def reply_to_history(self, request: Any, results_so_far: Sequence[str]) -> Call | None:
        """:meth:`reply` for hosts that send the whole history each time: the results after those received are new."""
        return self.reply(request, results_so_far[len(self.received) :])

    def call_id(self) -> str:
        """A call id unique in this conversation (one per request)."""
        return f"call-{len(self.requests)}"


class Scripted:
    """What every scripted model shows of its script (kept in ``_script``): ``received``, each tool result's text as
    the model read it, in order, and ``requests``, every model request as the host gave it."""

    _script: Script

    @property
    def script(self) -> Script:
        return self._script

    @property
    def received(self) -> list[str]:
        return self._script.received

    @property
    def requests(self) -> list[Any]:
        return self._script.requests

    def host_run(self, host: str, tool: str, **extra: object) -> HostRun:
        """The :class:`~hostshape.testing.HostRun` of a run in which this model called ``tool`` on ``host``:
        ``received`` is the first tool result's text, ``extra["received"]`` every one in order, then ``extra``."""
        received = self.received
        return HostRun(
            host=host,
            tool=tool,
            received=received[0] if received else "",
            requests=list(self.requests),
            extra={"received": received, **extra},
        )

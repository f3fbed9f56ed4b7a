"""JMESPath with bounds: a query written by a model may take only so much time and build only so much data.

``search(query, value, source_chars)`` evaluates ``query`` with jmespath's own interpreter, wrapped so that every
node it visits is counted (a cooperative step counter with a deadline in CPU time of the calling thread: no signals,
no threads, so it is safe inside a host's event loop), and every value it builds (projections, multi-selects,
flattens, slices, function results) is measured as the size of its JSON text before anything else uses it. Sizes are
memoised per object, so a result that repeats one object many times (``{a:@,b:@} | {a:@,b:@} | ...``) is measured in
time proportional to its distinct parts while its logical size, which is what rendering it would cost, is what gets
bounded. Function arguments are measured before the call, so ``to_string``, ``join``, ``sort`` and comparisons only
ever see bounded values. Exceeding a bound raises ``QueryTooCostly`` with a message for the model.
"""

from __future__ import annotations

import time
from typing import Any

import jmespath
from jmespath import visitor

MAX_QUERY_CHARS = 2_000
TIME_LIMIT_S = 3.0  # CPU seconds of the calling thread (time.thread_time): a busy machine does not shorten it
MAX_STEPS = 5_000_000
MIN_RESULT_CHARS = 4_000_000  # a query may always build this much, and twice the size of the data it reads
_CHECK_EVERY = 512  # steps between deadline checks
_BUILDERS = frozenset(
    {
        "projection",
        "value_projection",
        "filter_projection",
        "flatten",
        "slice",
        "multi_select_dict",
        "multi_select_list",
        "function_expression",
    }
)
_SCALAR_CHARS = 8  # a number, true, false or null, counted as this many characters


class QueryTooCostly(ValueError):
    """The query exceeded its time or size bound; ``str(exc)`` says which, in words for the model."""


def max_result_chars(source_chars: int) -> int:
    """The largest JSON text (in characters) a query over ``source_chars`` of data may build."""
    return MIN_RESULT_CHARS + 2 * max(0, source_chars)


def search(query: str, value: Any, source_chars: int, *, time_limit: float | None = None) -> Any:
    """``jmespath.search(query, value)`` within bounds.

    Raises ``jmespath.exceptions.JMESPathError`` for an invalid query (as jmespath does) and ``QueryTooCostly``
    when the query is too long or too deeply nested to parse, runs past ``time_limit`` seconds or ``MAX_STEPS``
    steps (``time_limit`` defaults to ``TIME_LIMIT_S``), or builds a value whose JSON text would exceed
    ``max_result_chars(source_chars)``.
    """
    if len(query) > MAX_QUERY_CHARS:
        raise QueryTooCostly(f"the query is longer than {MAX_QUERY_CHARS:,} characters")
    try:
        parsed = jmespath.compile(query)
    except RecursionError:
        raise QueryTooCostly("the query is nested too deeply to parse") from None
    time_limit = TIME_LIMIT_S if time_limit is None else time_limit
    interpreter = _Bounded(max_result_chars(source_chars), time.thread_time() + time_limit, time_limit)
    interpreter.known_size(value, source_chars)  # the data itself is not measured again: its text was that long
    try:
        return interpreter.visit(parsed.parsed, value)
    except RecursionError:
        raise QueryTooCostly("the query nests too deeply for this data") from None


class _Bounded(visitor.TreeInterpreter):
    """jmespath's TreeInterpreter (jmespath 1.1.0, visitor.py:100) with every ``visit`` counted and every built
    value measured; its ``visit_*`` methods recurse through ``self.visit`` and exprefs call back into it
    (visitor.py:79), so nothing escapes the count."""

    def __init__(self, max_chars: int, deadline: float, time_limit: float) -> None:
        super().__init__()
        self._max_chars = max_chars
        self._deadline = deadline
        self._time_limit = time_limit
        self._steps = 0
        self._sizes: dict[int, int] = {}
        self._alive: list[Any] = []  # keeps measured objects alive so that their ids stay theirs

    def visit(self, node: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        self._steps += 1
        if self._steps % _CHECK_EVERY == 0:
            if time.thread_time() > self._deadline:
                raise QueryTooCostly(f"the query ran longer than {self._time_limit:g} s")
            if self._steps > MAX_STEPS:
                raise QueryTooCostly(f"the query took more than {MAX_STEPS:,} steps")
        result = super().visit(node, *args, **kwargs)
        if node["type"] in _BUILDERS:
            self._bounded(result)
        return result

    def visit_function_expression(self, node: dict[str, Any], value: Any) -> Any:
        resolved = [self.visit(child, value) for child in node["children"]]
        for argument in resolved:  # functions may render, sort, join or compare their arguments whole
            self._bounded(argument)
        return self._functions.call_function(node["value"], resolved)

    def known_size(self, value: Any, size: int) -> None:
        """Take ``size`` as the measure of ``value`` (the data a query reads, whose JSON text is known)."""
        if isinstance(value, (dict, list)):
            self._sizes[id(value)] = size
            self._alive.append(value)

    def _bounded(self, value: Any) -> None:
        if self._size(value) > self._max_chars:
            raise QueryTooCostly(f"the query builds more than {self._max_chars:,} characters of data")

    def _size(self, value: Any) -> int:
        """The length of ``value``'s compact JSON text, about (exact for ASCII strings without escapes); stops
        early once it is over the bound."""
        if isinstance(value, str):
            return len(value) + 2
        if not isinstance(value, (dict, list)):
            return _SCALAR_CHARS
        sizes = self._sizes
        known = sizes.get(id(value))
        if known is not None:
            return known
        stack: list[tuple[Any, bool]] = [(value, False)]
        while stack:  # post-order without recursion: data may be nested deeper than Python's stack
            item, expanded = stack.pop()
            if id(item) in sizes:
                continue
            members = item.values() if isinstance(item, dict) else item
            if not expanded:
                stack.append((item, True))
                stack.extend((m, False) for m in members if isinstance(m, (dict, list)) and id(m) not in sizes)
                continue
            total = 2 + len(item)
            for member in members:
                if isinstance(member, str):
                    total += len(member) + 2
                elif isinstance(member, (dict, list)):
                    total += sizes[id(member)]
                else:
                    total += _SCALAR_CHARS
            if isinstance(item, dict):
                total += sum(len(k) + 3 if isinstance(k, str) else _SCALAR_CHARS for k in item)
            sizes[id(item)] = total
            self._alive.append(item)
            if total > self._max_chars:
                return total
        return sizes[id(value)]

"""Per-call size telemetry: a log record, span attributes when OpenTelemetry is present, and a per-tool summary.

Every shaped call is reported on the ``hostshape.telemetry`` logger (INFO) with tool, server, tokens before and
after, strategy, truncation and milliseconds. When ``opentelemetry-api`` is installed and a span is recording, the
same facts are set on it: ``gen_ai.tool.name`` and ``gen_ai.operation.name`` from the OpenTelemetry GenAI semantic
conventions, the rest as ``hostshape.*``. ``collect()`` starts an in-memory summary (count, p50, p95 and max of
tokens before and after, per tool), read with ``summary()``.

Counting tokens before means tokenizing the input, which shaping itself avoids: it happens only while someone
listens (the logger is enabled for INFO, a span is recording, or the summary is collecting), and only for the first
``EXACT_CHARS`` characters: beyond them ``tokens_before`` is extrapolated from that sample by length, and
``tokens_before_estimated`` says so (a 10 MB input costs a 256 KB count, not a 10 MB one).
"""

from __future__ import annotations

import logging
import sys
import threading
from collections import defaultdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hostshape.result import Shaped

log = logging.getLogger("hostshape.telemetry")

_lock = threading.Lock()
_collecting = False
_samples: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
_MAX_SAMPLES = 100_000
EXACT_CHARS = 262_144


def collect(enabled: bool = True) -> None:
    """Start (or stop) the in-memory per-tool summary; starting clears what was collected before."""
    global _collecting
    with _lock:
        _collecting = enabled
        _samples.clear()


def record(result: Shaped) -> None:
    """Report one shaped call. Never raises."""
    try:
        span = _recording_span()
        if not (_collecting or span is not None or log.isEnabledFor(logging.INFO)):
            return
        stats = result.stats()
        stats["tokens_before"], stats["tokens_before_estimated"] = _tokens_before(result)
        stats["tokens_after"] = result.tokens
        log.info("shaped %s", stats)
        if span is not None:
            _set_span_attributes(span, stats)
        if _collecting:
            key = f"{result.server}/{result.tool}" if result.server else str(result.tool)
            with _lock:
                series = _samples[key]
                for name in ("tokens_before", "tokens_after", "ms"):
                    if len(series[name]) < _MAX_SAMPLES:
                        series[name].append(float(stats[name]))  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001
        log.debug("telemetry failed", exc_info=True)


def _tokens_before(result: Shaped) -> tuple[int, bool]:
    """The input's tokens: exact up to EXACT_CHARS characters, else extrapolated from its first EXACT_CHARS."""
    text = result.input_text
    if len(text) <= EXACT_CHARS:
        return result.tokens_before, False
    from hostshape.tokens import count_tokens

    sample = count_tokens(text[:EXACT_CHARS], result.encoding)
    return round(sample * len(text) / EXACT_CHARS), True


def _recording_span() -> Any:
    # A span can only be recording where something has already imported the OpenTelemetry API (a tracer provider
    # or instrumentation set up by the host); importing it here would only cost a short-lived hook process time.
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    span = trace.get_current_span()
    return span if span.is_recording() else None


def _set_span_attributes(span: Any, stats: dict[str, Any]) -> None:
    span.set_attribute("gen_ai.operation.name", "execute_tool")
    if stats.get("tool"):
        span.set_attribute("gen_ai.tool.name", str(stats["tool"]))
    for key, value in stats.items():
        if key != "tool" and isinstance(value, (str, bool, int, float)):
            span.set_attribute(f"hostshape.{key}", value)


def summary() -> dict[str, dict[str, dict[str, float]]]:
    """Per tool: count, p50, p95 and max of tokens before, tokens after and milliseconds."""
    with _lock:
        return {tool: {name: _describe(values) for name, values in series.items()} for tool, series in _samples.items()}


def _describe(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    n = len(ordered)
    return {
        "count": n,
        "p50": ordered[(n - 1) // 2],
        "p95": ordered[min(n - 1, int(0.95 * (n - 1) + 0.5))],
        "max": ordered[-1],
    }

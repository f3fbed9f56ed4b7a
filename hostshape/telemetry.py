"""Per-call size telemetry: a log record, span attributes when OpenTelemetry is present, and a summary.

Every shaped call is logged on the ``hostshape.telemetry`` logger (DEBUG) with tool, server, bytes before,
tokens after, strategy, truncation and milliseconds. When ``opentelemetry-api`` is installed, the same facts are set
as attributes on the current span (``gen_ai.tool.name`` from the OpenTelemetry GenAI conventions, the rest under
``hostshape.*``). ``summary()`` gives count, p50, p95 and max per tool since start (or ``reset()``).
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hostshape.result import Shaped

log = logging.getLogger("hostshape.telemetry")

_lock = threading.Lock()
_samples: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
_MAX_SAMPLES = 10_000


def record(result: Shaped) -> None:
    """Report one shaped call. Never raises."""
    try:
        stats = result.stats()
        if result.changed:
            stats["tokens_after"] = result.tokens
        else:
            stats.pop("tokens_after")
        log.debug("shaped %s", stats)
        _set_span_attributes(stats)
        key = f"{result.server}/{result.tool}" if result.server else str(result.tool)
        with _lock:
            series = _samples[key]
            for name in ("bytes_before", "tokens_after", "ms"):
                if isinstance(stats.get(name), (int, float)) and len(series[name]) < _MAX_SAMPLES:
                    series[name].append(float(stats[name]))  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001
        log.debug("telemetry failed", exc_info=True)


def _set_span_attributes(stats: dict[str, Any]) -> None:
    try:
        from opentelemetry import trace
    except ImportError:
        return
    span = trace.get_current_span()
    if not span.is_recording():
        return
    if stats.get("tool"):
        span.set_attribute("gen_ai.tool.name", str(stats["tool"]))
    for key, value in stats.items():
        if key != "tool" and isinstance(value, (str, bool, int, float)):
            span.set_attribute(f"hostshape.{key}", value)


def summary() -> dict[str, dict[str, dict[str, float]]]:
    """Per tool: count, p50, p95 and max of bytes before, tokens after and milliseconds."""
    with _lock:
        return {tool: {name: _describe(values) for name, values in series.items()} for tool, series in _samples.items()}


def reset() -> None:
    with _lock:
        _samples.clear()


def _describe(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    n = len(ordered)
    return {"count": n, "p50": ordered[(n - 1) // 2], "p95": ordered[min(n - 1, int(0.95 * (n - 1) + 0.5))],
            "max": ordered[-1]}

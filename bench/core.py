"""hostshape against the parsing floor: per corpus file, shaping time vs json.loads / orjson.loads of the same text.

Issue 2's aim: shaping at most 2x json.loads on the large files (parsing is the floor), and an input that already
fits the budget passed through in about a millisecond.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from bench.corpus import Payload
from bench.measure import median_seconds
from bench.peers import SPILL_DIR
from hostshape.tokens import count_tokens

LARGE_BYTES = 100_000  # "large files" for the 2x goal


@dataclass
class CoreRow:
    file: str
    bytes: int
    budget: int
    changed: bool
    strategy: str
    shape_ms: float
    shape_mcp_ms: float  # the same text as a CallToolResult dict with its structuredContent mirror
    json_ms: float | None
    orjson_ms: float | None
    count_ms: float  # one exact o200k count of hostshape's output: the least any exact-budget shaper must spend

    @property
    def vs_json(self) -> float | None:
        return self.shape_ms / self.json_ms if self.json_ms else None

    @property
    def vs_orjson(self) -> float | None:
        return self.shape_ms / self.orjson_ms if self.orjson_ms else None

    @property
    def vs_floor(self) -> float | None:
        """Shaping time over json.loads plus one exact count of the output."""
        return self.shape_ms / (self.json_ms + self.count_ms) if self.json_ms else None

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "vs_json": self.vs_json, "vs_orjson": self.vs_orjson, "vs_floor": self.vs_floor}


def _mcp_result(text: str) -> dict[str, Any]:
    """A FastMCP `-> str` tool's CallToolResult, as hosts receive it (hostshape/examples/mcp_server.py)."""
    return {
        "content": [{"type": "text", "text": text}],
        "structuredContent": {"result": text},
        "isError": False,
    }


def measure_core(payloads: list[Payload], budgets: list[int], runs: int) -> list[CoreRow]:
    """Per payload and budget: shape(text), shape(CallToolResult dict), json.loads and orjson.loads, interleaved."""
    import orjson

    from hostshape import Policy, shape

    rows = []
    for p in payloads:
        mcp = _mcp_result(p.text)
        for budget in budgets:
            policy = Policy(budget=budget, spill_dir=SPILL_DIR)

            def shape_it(raw: Any, policy: Policy = policy, tool: str = p.tool) -> Any:
                return shape(raw, policy=policy, tool=tool, server="corpus")

            res = shape_it(p.text)
            calls: list[tuple[Callable[[Any], Any], Any]] = [(shape_it, p.text), (shape_it, mcp)]
            calls.append((count_tokens, res.text))
            if p.is_json:
                calls += [(json.loads, p.text), (orjson.loads, p.text)]
            ms = [s * 1000 for s in median_seconds(calls, runs)]
            rows.append(
                CoreRow(
                    file=p.name,
                    bytes=p.size,
                    budget=budget,
                    changed=res.changed,
                    strategy=res.strategy,
                    shape_ms=ms[0],
                    shape_mcp_ms=ms[1],
                    count_ms=ms[2],
                    json_ms=ms[3] if p.is_json else None,
                    orjson_ms=ms[4] if p.is_json else None,
                )
            )
    return rows


def passthrough_ms(runs: int) -> dict[str, float]:
    """Time to pass through inputs that already fit 4,000 tokens: a short text, one JSON record, a 9 KB JSON page."""
    from hostshape import Policy, shape
    from hostshape.examples import payload_text

    page = payload_text("octokit_issues_page1.json")  # 2,741 tokens
    record = json.dumps(json.loads(page)[0])
    policy = Policy(budget=4000, spill_dir=SPILL_DIR)
    cases = {
        "short text (17 B)": "No results found.",
        f"one JSON record ({len(record.encode()):,} B)": record,
        f"octokit_issues_page1.json ({len(page.encode()):,} B, 2,741 tokens)": page,
    }

    def shape_it(text: str) -> Any:
        return shape(text, policy=policy, tool="bench", server="corpus")

    labels = [label + ("" if not shape_it(text).changed else " [changed!]") for label, text in cases.items()]
    seconds = median_seconds([(shape_it, text) for text in cases.values()], runs)
    return {label: s * 1000 for label, s in zip(labels, seconds, strict=True)}

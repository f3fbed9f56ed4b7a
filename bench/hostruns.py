"""hostshape and halo-format inside real hosts: what the model actually receives.

- Claude Code: the bundled CLI run offline against the loopback Anthropic server (``hostshape.testing.claude``),
  the example MCP server's tool for one payload; halo's hook installed with ``install_halo(ClaudeAgentOptions())``
  (its hooks, beside the test recorder), hostshape with ``install(options, Policy(budget=B))``; Claude Code alone
  for reference. halo has no budget, so it runs once; hostshape once per budget.
- OpenAI Agents SDK: a real ``Runner.run`` with the scripted model and the example stdio MCP server
  (``hostshape.testing.openai_agents``); halo's ``call_model_input_filter`` from ``install_halo()`` on the
  RunConfig, hostshape's adapter per budget.

The CLI takes several seconds per run, so this covers two payloads (``PAYLOADS``: one over Claude Code's 25,000-token
limit, one under it) at the run's budgets for hostshape; every payload goes through the peers' core functions in
``bench/hostbench.py``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from bench.corpus import Payload
from bench.measure import fits, tokens

#: one result over Claude Code's 25,000-token limit (MAX_MCP_OUTPUT_TOKENS) and one under it
PAYLOADS = ("gh_pulls_list.json", "octokit_issues_page1.json")


@dataclass
class HostRunRow:
    host: str
    tool: str
    file: str
    budget: int | None  # None: the tool has no budget (its defaults)
    tokens: int | None
    fits: dict[str, bool]  # budget -> fits
    valid_json: bool | None
    recall: float | None
    seconds: float
    error: str | None = None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _judge(
    host: str,
    tool: str,
    p: Payload,
    budget: int | None,
    received: str,
    seconds: float,
    budgets: list[int],
    note: str = "",
) -> HostRunRow:
    try:
        json.loads(received)
        valid: bool | None = True
    except ValueError:
        valid = False
    return HostRunRow(
        host,
        tool,
        p.name,
        budget,
        tokens(received),
        {str(b): fits(received, b) for b in budgets},
        valid if p.is_json else None,
        p.recall(received),
        seconds,
        note=note,
    )


def _timed(fn: Callable[[], Any]) -> tuple[Any, float, str | None]:
    t0 = time.perf_counter()
    try:
        return asyncio.run(fn()), time.perf_counter() - t0, None
    except Exception as exc:  # noqa: BLE001 - a failed run is a result
        return None, time.perf_counter() - t0, f"{type(exc).__name__}: {str(exc)[:160]}"


def claude_runs(p: Payload, budgets: list[int], say: Callable[[str], None]) -> list[HostRunRow]:
    from claude_agent_sdk import ClaudeAgentOptions
    from halo_format_claude import install_halo

    from hostshape.policy import Policy
    from hostshape.testing import claude

    rows: list[HostRunRow] = []
    plans: list[tuple[str, int | None, dict[str, Any]]] = [("Claude Code alone", None, {"policy": None})]
    halo = install_halo(ClaudeAgentOptions())
    plans.append(("halo-format-claude", None, {"policy": None, "hooks": halo.options.hooks}))
    plans += [("hostshape", b, {"policy": Policy(budget=b)}) for b in budgets]
    for name, budget, kwargs in plans:
        run, seconds, err = _timed(lambda kw=kwargs: claude.run(p.tool, timeout=120, **kw))
        if err or run is None:
            rows.append(HostRunRow("claude", name, p.name, budget, None, {}, None, None, seconds, err))
        else:
            note = ""
            if name == "halo-format-claude":
                inputs = run.extra.get("hook_inputs") or []
                note = f"halo hook fired {len(halo.session._maps)}x; recorder saw {len(inputs)} PostToolUse"
            rows.append(_judge("claude", name, p, budget, run.received, seconds, budgets, note))
        say(f"claude {name} @ {budget}: {seconds:.1f}s {err or ''}")
    return rows


def openai_runs(p: Payload, budgets: list[int], say: Callable[[str], None]) -> list[HostRunRow]:
    from halo_format_openai import install_halo

    from hostshape.policy import Policy
    from hostshape.testing import openai_agents

    rows: list[HostRunRow] = []
    halo = install_halo()
    plans: list[tuple[str, int | None, dict[str, Any]]] = [
        ("OpenAI Agents alone", None, {"policy": None}),
        ("halo-format-openai", None, {"policy": None, "then": halo.call_model_input_filter}),
    ]
    plans += [("hostshape", b, {"policy": Policy(budget=b)}) for b in budgets]
    for name, budget, kwargs in plans:
        run, seconds, err = _timed(lambda kw=kwargs: openai_agents.run(p.tool, followups=[(p.tool, {})], **kw))
        if err or run is None:
            rows.append(HostRunRow("openai-agents", name, p.name, budget, None, {}, None, None, seconds, err))
        else:
            # The second model call is the one a filter has rewritten for sure (halo caches per call_id).
            seen = run.extra.get("seen") or [run.received]
            rows.append(_judge("openai-agents", name, p, budget, seen[0], seconds, budgets))
        say(f"openai-agents {name} @ {budget}: {seconds:.1f}s {err or ''}")
    return rows


def run_all(
    payloads: list[Payload], budgets: list[int], say: Callable[[str], None]
) -> tuple[list[HostRunRow], dict[str, str]]:
    """Both hosts on each of PAYLOADS in this run; a host whose framework or peer is missing is returned as skipped."""
    skipped: dict[str, str] = {}
    rows: list[HostRunRow] = []
    chosen = [x for x in payloads if x.name in PAYLOADS]
    if not chosen:
        return rows, {"hosts": f"none of {', '.join(PAYLOADS)} in this run"}
    for host, fn in (("claude", claude_runs), ("openai-agents", openai_runs)):
        for p in chosen:
            try:
                rows += fn(p, budgets, say)
            except ImportError as exc:
                skipped[host] = f"{type(exc).__name__}: {exc}"
                break
    return rows, skipped


def table(rows: list[HostRunRow], budgets: list[int]) -> str:
    head = "| host | file | tool | budget | tokens received | " + " | ".join(f"fits {b:,}" for b in budgets)
    head += " | valid JSON | recall | run s |\n|---|---|---|---|---|" + "---|" * len(budgets) + "---|---|---|"
    out = [head]
    for r in rows:
        if r.error:
            out.append(
                f"| {r.host} | {r.file} | {r.tool} | {r.budget or 'none'} | error: {r.error} |"
                + " |" * (len(budgets) + 3)
            )
            continue
        fit = " | ".join(("✓" if r.fits.get(str(b)) else "✗") for b in budgets)
        out.append(
            f"| {r.host} | {r.file} | {r.tool} | {f'{r.budget:,}' if r.budget else 'none'} | {r.tokens:,} | {fit} | "
            f"{'-' if r.valid_json is None else ('yes' if r.valid_json else 'no')} | "
            f"{'-' if r.recall is None else f'{r.recall:.2f}'} | {r.seconds:.1f} |"
        )
    return "\n".join(out)

"""``hostshape demo``: every installed host, run for real and offline, first without hostshape, then with it.

Each host runs its real runtime with a scripted model (Claude Code: the real CLI against a loopback stand-in for
the Messages API) and the example stdio MCP server; the model asks for ``list_pull_requests`` (the recorded
``gh_pulls_list.json``, 54,552 tokens) and the table shows what it received.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

from hostshape.adapters.registry import Host, hosts
from hostshape.examples import TOOLS, payload_text
from hostshape.policy import Policy
from hostshape.tokens import count_tokens

TOOL = "list_pull_requests"


HOSTS = tuple(hosts(demo=True))  # the registry's hosts with an offline harness (hostshape.testing.<key>)

# Interpreters of other environments (os.pathsep-separated) that `hostshape demo` asks for the rows of hosts whose
# framework this one lacks: the frameworks' mcp pins cannot share one environment (pyproject.toml, [all]).
PYTHONS_ENV = "HOSTSHAPE_DEMO_PYTHONS"


def _aliases() -> dict[str, Host]:
    """Every accepted name (normalised) and its host. Module names win over extras, extras over framework modules,
    and an earlier row over a later one, so a name two rows share means the host it names first."""
    known: dict[str, Host] = {}
    for names_of in (lambda h: h.key, lambda h: h.extra, lambda h: h.framework.removesuffix(".mcp")):
        for host in HOSTS:
            known.setdefault(_normal(names_of(host)), host)
    return known


def host_names(host: Host) -> tuple[str, ...]:
    """The names ``--host`` accepts for ``host``: its adapter module, its extra and its framework's module, where
    no earlier row already claims them."""
    known = _aliases()
    names = (host.key, host.extra, host.framework.removesuffix(".mcp"))
    return tuple(dict.fromkeys(n for n in names if known[_normal(n)] is host))


def _normal(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(".", "_")


def resolve_hosts(names: list[str] | None) -> list[Host]:
    """The hosts named (any of ``host_names``, ``-`` and ``_`` alike), in table order; all when ``names`` is empty.
    Raises ValueError naming the accepted names for an unknown one."""
    if not names:
        return list(HOSTS)
    known = _aliases()
    unknown = [n for n in names if _normal(n) not in known]
    if unknown:
        raise ValueError(f"unknown host {', '.join(map(repr, unknown))}; choose from: {accepted_names()}")
    chosen = {known[_normal(n)].key for n in names}
    return [h for h in HOSTS if h.key in chosen]


def accepted_names() -> str:
    """One line listing every host's accepted names."""
    return "; ".join(" | ".join(host_names(h)) for h in HOSTS)


@dataclass
class Row:
    host: str
    interception_point: str
    fires: str
    tool_tokens: int
    without_tokens: int | None = None
    with_tokens: int | None = None
    fits_budget: bool | None = None
    ids_kept_without: float | None = None
    ids_kept_with: float | None = None
    seconds: float | None = None
    skipped: str | None = None


def identifiers_kept(text: str, numbers: list[int]) -> float:
    """Fraction of ``numbers`` that appear in ``text`` as whole numbers."""
    present = {int(m) for m in re.findall(r"(?<![\w.])\d+(?![\w.])", text)}
    return sum(n in present for n in numbers) / len(numbers)


async def run_host(host: Host, policy: Policy, progress: Any = None) -> Row:
    """One row of the table: ``host`` without, then with, hostshape."""
    raw = payload_text(TOOLS[TOOL])
    numbers = [pull["number"] for pull in json.loads(raw)]
    adapter = importlib.import_module(host.adapter_module)
    row = Row(adapter.HOST, adapter.INTERCEPTION_POINT, adapter.FIRES, count_tokens(raw))
    try:
        importlib.import_module(host.framework)
    except ImportError:
        row.skipped = f"pip install 'hostshape[{host.extra}]'"
        return row
    harness = importlib.import_module(f"hostshape.testing.{host.key}")
    started = time.perf_counter()
    if progress:
        progress(f"{row.host}: without hostshape")
    without = await harness.run(TOOL, policy=None)
    if progress:
        progress(f"{row.host}: with hostshape")
    shaped = await harness.run(TOOL, policy=policy)
    row.seconds = round(time.perf_counter() - started, 1)
    row.without_tokens = count_tokens(without.received)
    row.with_tokens = count_tokens(shaped.received)
    row.fits_budget = row.with_tokens <= policy.budget
    row.ids_kept_without = identifiers_kept(without.received, numbers)
    row.ids_kept_with = identifiers_kept(shaped.received, numbers)
    return row


def render_table(rows: list[Row], budget: int) -> str:
    """The rows as a plain-text table."""
    head = [
        "host",
        "interception point",
        "fires",
        "tool returned",
        "model got: without",
        "with",
        "fits",
        "ids kept: without",
        "with",
    ]
    lines = [head]
    for r in rows:
        if r.skipped:
            lines.append(
                [r.host, r.interception_point, r.fires, f"{r.tool_tokens:,}", f"skipped: {r.skipped}", "", "", "", ""]
            )
            continue
        lines.append(
            [
                r.host,
                r.interception_point,
                r.fires,
                f"{r.tool_tokens:,}",
                f"{r.without_tokens:,}",
                f"{r.with_tokens:,}",
                "yes" if r.fits_budget else "NO",
                f"{r.ids_kept_without:.0%}",
                f"{r.ids_kept_with:.0%}",
            ]
        )
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head))]
    out = [" | ".join(str(c).ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in lines]
    out.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(out) + f"\n\nTool: {TOOL} (gh_pulls_list.json); tokens are o200k_base; budget {budget:,}."


def _row_elsewhere(host: Host, budget: int) -> Row | None:
    """``host``'s row from the first interpreter of ``$HOSTSHAPE_DEMO_PYTHONS`` whose environment has its
    framework (``python -m hostshape demo --json --host KEY`` there), or None."""
    for python in filter(None, os.environ.get(PYTHONS_ENV, "").split(os.pathsep)):
        argv = [python, "-m", "hostshape", "demo", "--json", "--budget", str(budget), "--host", host.key]
        env = {k: v for k, v in os.environ.items() if k != PYTHONS_ENV}
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=900, env=env, check=False)
            (found,) = json.loads(done.stdout)
            row = Row(**found)
        except (OSError, ValueError, TypeError, subprocess.SubprocessError):  # not a row: try the next one
            continue
        if row.skipped is None:
            return row
    return None


def main(*, budget: int = 4000, as_json: bool = False, hosts: list[str] | None = None) -> int:
    """Run the demo and print the table (or JSON); returns the process exit code."""
    logging.basicConfig(level=logging.WARNING)
    policy = Policy(budget=budget)
    chosen = resolve_hosts(hosts)
    rows: list[Row] = []

    def progress(message: str) -> None:
        print(f"  … {message}", file=sys.stderr, flush=True)

    for i, host in enumerate(chosen, 1):
        print(f"[{i}/{len(chosen)}] {host.key}", file=sys.stderr, flush=True)
        try:
            row = asyncio.run(run_host(host, policy, progress))
            rows.append(row if row.skipped is None else _row_elsewhere(host, budget) or row)
        except Exception as exc:  # noqa: BLE001 - one broken host must not hide the others
            adapter = importlib.import_module(host.adapter_module)
            rows.append(
                Row(
                    adapter.HOST,
                    adapter.INTERCEPTION_POINT,
                    adapter.FIRES,
                    0,
                    skipped=f"failed: {type(exc).__name__}: {exc}"[:120],
                )
            )
    if as_json:
        print(json.dumps([asdict(r) for r in rows], indent=2))
    else:
        print(render_table(rows, budget))
    return 0 if all(r.skipped is None or r.skipped.startswith("pip") for r in rows) else 1

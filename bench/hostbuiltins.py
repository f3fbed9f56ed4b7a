"""hostshape beside each new host's own trimming or offloading, on the packaged payloads (issue 29).

    python -m bench.hostbuiltins [--budget 4000]

Per payload over the budget: the exact o200k tokens of what the model reads, whether that fits the budget, valid
JSON when the payload was JSON, and identifier recall (``bench/corpus.py``), for the framework's own mechanism
(called through its own API) and for hostshape's adapter in that host at the same budget. Hosts whose framework is
not installed in this environment are skipped and named (their pins put them in different environments:
pyproject.toml, above ``[all]``; run it in each).

- Strands Agents 1.62.0: ``ContextOffloader`` (vended_plugins/context_offloader/plugin.py:169; 2,500-token threshold,
  1,000-token preview, in-memory storage), run by the agent's own hook registry on an ``AfterToolCallEvent``.
- LlamaIndex 0.14.25: no trimming; the model reads ``str(CallToolResult)`` (core/tools/function_tool.py:328-329).
- Microsoft Agent Framework 1.23.0: ``ToolResultCompactionStrategy`` (_compaction.py:1366-1382), which collapses
  OLDER tool results to a 4,096-character summary; the newest result goes to the model whole (``structured_first``).
- Agno 3.1.10: ``CompressionManager`` (compression/manager.py:52-64) asks a model to summarise: not run offline.
- CrewAI's deferral to a file (over 25% of the context window) is measured in its real runtime instead:
  tests/test_crewai_adapter.py.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
from collections.abc import Callable
from typing import Any

from bench.corpus import Payload, load
from hostshape import Policy
from hostshape.tokens import count_tokens


def _structured(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text}, "isError": False}


# --- Strands -------------------------------------------------------------------------------------------------------


def _strands_event(text: str, tool: str, plugins: list[Any]) -> Any:
    from strands import Agent
    from strands.hooks import AfterToolCallEvent

    from hostshape.testing.strands import scripted_model

    agent = Agent(model=scripted_model(None), plugins=plugins, callback_handler=None)
    result = {"toolUseId": "t", "status": "success", "content": [{"text": text}], "structuredContent": {"result": text}}
    use = {"toolUseId": "t", "name": tool, "input": {}}
    return agent, AfterToolCallEvent(agent=agent, selected_tool=None, tool_use=use, invocation_state={}, result=result)


def strands_offloader(p: Payload, budget: int) -> str:
    from strands.vended_plugins.context_offloader import ContextOffloader, InMemoryStorage

    from hostshape.testing.strands import received_text

    agent, event = _strands_event(p.text, p.tool, [ContextOffloader(storage=InMemoryStorage())])
    asyncio.run(agent.hooks.invoke_callbacks_async(event))
    return received_text(event.result)


def strands_hostshape(p: Payload, budget: int) -> str:
    from hostshape.adapters import strands
    from hostshape.testing.strands import received_text

    _, event = _strands_event(p.text, p.tool, [])
    shaped = strands.shape_tool_result(event.result, tool=p.tool, args={}, policy=Policy(budget=budget))
    return received_text(shaped if shaped is not None else event.result)


# --- LlamaIndex ----------------------------------------------------------------------------------------------------


def llamaindex_repr(p: Payload, budget: int) -> str:
    from mcp.types import CallToolResult

    return str(CallToolResult.model_validate(_structured(p.text)))


def llamaindex_hostshape(p: Payload, budget: int) -> str:
    from mcp.types import CallToolResult

    from hostshape.adapters import llamaindex

    raw = CallToolResult.model_validate(_structured(p.text))
    out = llamaindex.shape_output(raw, tool=p.tool, policy=Policy(budget=budget))
    return out.content if out is not None else str(raw)


# --- Agent Framework -----------------------------------------------------------------------------------------------


def agent_framework_compaction(p: Payload, budget: int) -> str:
    from agent_framework._compaction import ToolResultCompactionStrategy

    return ToolResultCompactionStrategy()._summary_text([f"{p.tool}: {json.dumps({'result': p.text})}"])


def agent_framework_hostshape(p: Payload, budget: int) -> str:
    from hostshape.adapters import agent_framework

    text = json.dumps({"result": p.text})  # structured_first: what the model reads without hostshape
    out = agent_framework.shape_result(text, tool=p.tool, args={}, policy=Policy(budget=budget))
    return out[0].text if out else text


#: (module that must import, host, mechanism, (payload, budget) -> the text the model reads)
MECHANISMS: tuple[tuple[str, str, str, Callable[[Payload, int], str]], ...] = (
    ("strands", "Strands Agents", "ContextOffloader (default)", strands_offloader),
    ("strands", "Strands Agents", "hostshape", strands_hostshape),
    ("llama_index.core", "LlamaIndex", "str(CallToolResult) (no trimming)", llamaindex_repr),
    ("llama_index.core", "LlamaIndex", "hostshape", llamaindex_hostshape),
    ("agent_framework", "Agent Framework", "ToolResultCompactionStrategy (older turns)", agent_framework_compaction),
    ("agent_framework", "Agent Framework", "hostshape", agent_framework_hostshape),
)


def _valid_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def rows(budget: int) -> tuple[list[dict[str, Any]], list[str]]:
    """One row per (mechanism, payload over the budget); and the hosts skipped here."""
    out: list[dict[str, Any]] = []
    skipped: list[str] = ["Agno (CompressionManager asks a model to summarise: not run offline)"]
    payloads = [p for p in load() if count_tokens(p.text) > budget]
    for module, host, what, run in MECHANISMS:
        if importlib.util.find_spec(module.split(".")[0]) is None:
            if f"{host} (not installed here)" not in skipped:
                skipped.append(f"{host} (not installed here)")
            continue
        for p in payloads:
            text = run(p, budget)
            tokens = count_tokens(text)
            out.append(
                {
                    "host": host,
                    "mechanism": what,
                    "payload": p.name,
                    "tokens": tokens,
                    "fits": tokens <= budget,
                    "json": _valid_json(text) if p.is_json else None,
                    "recall": p.recall(text),
                }
            )
    return out, skipped


def render(table: list[dict[str, Any]], skipped: list[str], budget: int) -> str:
    lines = [
        f"budget {budget:,} tokens (o200k_base); payloads over it, hostshape/examples/payloads",
        "",
        "| host | mechanism | payloads | fits | valid JSON | mean recall | mean tokens |",
        "|---|---|---|---|---|---|---|",
    ]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in table:
        groups.setdefault((row["host"], row["mechanism"]), []).append(row)
    for (host, what), group in groups.items():
        jsons = [r["json"] for r in group if r["json"] is not None]
        recalls = [r["recall"] for r in group if r["recall"] is not None]
        lines.append(
            f"| {host} | {what} | {len(group)} | {sum(r['fits'] for r in group)}/{len(group)} "
            f"| {sum(jsons)}/{len(jsons)} | {sum(recalls) / len(recalls):.0%} "
            f"| {sum(r['tokens'] for r in group) // len(group):,} |"
        )
    if skipped:
        lines += ["", "not run here: " + "; ".join(skipped)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=4000)
    parser.add_argument("--json", action="store_true", help="print every row as JSON")
    args = parser.parse_args(argv)
    table, skipped = rows(args.budget)
    print(json.dumps(table, indent=2) if args.json else render(table, skipped, args.budget))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

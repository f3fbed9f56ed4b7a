"""Run a host with no hostshape adapter at all, its MCP server behind ``hostshape proxy``, offline.

``await run("list_pull_requests", policy=Policy(budget=4000))`` runs the real Claude Code CLI (the bundled one of
``claude-agent-sdk``, against the loopback Messages API of ``hostshape.testing.claude``) with NO hook, whose
``corpus`` server is ``hostshape proxy --policy <policy as TOML> -- <the example server>``. ``policy=None`` runs the
same host on the example server directly. ``host="openai_agents"`` runs OpenAI Agents' ``MCPServerStdio`` instead.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hostshape.policy import Policy
from hostshape.testing import HostRun, mcp_server_command

__all__ = ["policy_toml", "proxy_command", "run"]


def proxy_command(policy_file: str | Path, upstream: Sequence[str] | None = None) -> list[str]:
    """argv that starts ``hostshape proxy`` with ``policy_file`` in front of ``upstream`` (the example server)."""
    return [
        sys.executable,
        "-m",
        "hostshape.cli",
        "proxy",
        "--policy",
        str(policy_file),
        "--",
        *(upstream or mcp_server_command()),
    ]


def policy_toml(policy: Policy) -> str:
    """``policy`` in the TOML form ``Policy.from_toml`` reads (the proxy runs in its own process)."""
    lines = [
        f"budget = {policy.budget}",
        f"encoding = {json.dumps(policy.encoding)}",
        f"safety_factor = {policy.safety_factor!r}",
        f"on_fault = {json.dumps(policy.on_fault)}",
        f"keep_binary = {str(policy.keep_binary).lower()}",
    ]
    if policy.max_chars is not None:
        lines.append(f"max_chars = {policy.max_chars}")
    lines += ["", "[spill]", f"enabled = {str(policy.spill).lower()}", f"max_bytes = {policy.spill_max_bytes}"]
    if policy.spill_dir is not None:
        lines.append(f"dir = {json.dumps(str(policy.spill_dir))}")
    for key in ("url", "tenant", "secret_file", "ttl_s"):
        value = getattr(policy, f"spill_{key}")
        if value is not None:
            lines.append(f"{key} = {json.dumps(str(value) if key == 'secret_file' else value)}")
    for rule in policy.rules:
        lines += ["", "[[rules]]", f"tool = {json.dumps(rule.tool)}", f"shrink = {str(rule.shrink).lower()}"]
        for key in ("server", "jmespath", "budget"):
            value = getattr(rule, key)
            if value is not None:
                lines.append(f"{key} = {json.dumps(value)}")
        if rule.fields is not None:
            lines.append(f"fields = {json.dumps(list(rule.fields))}")
        if rule.rename:
            lines.append(
                "rename = {" + ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in rule.rename.items()) + "}"
            )
    return "\n".join(lines) + "\n"


async def run(tool: str, *, policy: Policy | None, host: str = "claude", **options: Any) -> HostRun:
    """One run of ``host`` (``claude`` or ``openai_agents``) calling ``tool``; behind the proxy when ``policy``.

    ``options`` go to the host harness's ``run`` (``script``, ``steps``, ``env``, ``arguments``...)."""
    from importlib import import_module

    harness = import_module(f"hostshape.testing.{host}")
    if policy is None:
        return await harness.run(tool, policy=None, **options)
    with tempfile.TemporaryDirectory(prefix="hostshape-proxy-") as folder:
        policy_file = Path(folder) / "policy.toml"
        policy_file.write_text(policy_toml(policy), encoding="utf-8")
        result: HostRun = await harness.run(tool, policy=None, server_command=proxy_command(policy_file), **options)
        result.extra["proxy"] = True
        return result

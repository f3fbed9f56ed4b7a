"""Offline harnesses that run each host for real, with a scripted model, against the example MCP server.

Used by the test suite, ``hostshape demo`` and the notebooks, and public so that you can test your own agent offline
(docs/testing.md). Each host module (``hostshape.testing.<host>``, one per adapter) offers
``scripted_model(first, next_call=None, final_text="done")``, a model at that framework's own model interface that
plays a :class:`~hostshape.testing.script.Script` and records what it reads, and ``run(...) -> HostRun``: one agent
run in which the scripted model calls one MCP tool and records exactly what it receives back.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field


@dataclass
class HostRun:
    """What one scripted-model run observed.

    ``received`` is the exact text the model was given as the tool result (as the provider would be sent it);
    ``requests`` holds every model request the scripted model saw, in host-specific form, for deeper assertions.
    """

    host: str
    tool: str
    received: str
    requests: list[object] = field(default_factory=list)
    extra: dict[str, object] = field(default_factory=dict)


def mcp_server_command() -> list[str]:
    """argv that starts the example stdio MCP server with this interpreter."""
    return [sys.executable, "-m", "hostshape.examples.mcp_server"]

"""Offline harnesses that run each host for real, with a scripted model, against the example MCP server.

Used by the test suite, ``hostshape demo`` and the notebooks. Each host module (``hostshape.testing.claude``,
``.openai_agents``, ``.langchain``, ``.pydantic_ai``, ``.adk``) offers ``run(...) -> HostRun``: one agent run in
which the scripted model calls one MCP tool and records exactly what it receives back.
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

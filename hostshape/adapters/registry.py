"""The one list of hosts hostshape plugs into: each host's adapter module, the extra that installs its framework,
the framework's module, and what the adapter's ``install`` takes and returns.

The demo (``hostshape demo``), the tests (tests/test_seam.py, tests/test_readme.py, tests/test_cli.py) and the
README read this list; adding a host is one module under ``hostshape/adapters/``, one row here and one test file
(docs/adding-a-host.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Seam = Literal["agent", "command hook", "server", "proxy"]


@dataclass(frozen=True)
class Host:
    """One host.

    - ``key``: the adapter's module name (``hostshape.adapters.<key>``) and the name ``hostshape demo --host``
      takes; the offline harness, when there is one, is ``hostshape.testing.<key>``.
    - ``extra``: ``pip install 'hostshape[<extra>]'`` installs the framework; ``framework``: the module the
      adapter imports (its presence means the host can run).
    - ``adapter``: the module when it is not ``hostshape.adapters.<key>``.
    - ``seam``: how hostshape meets the host: an agent framework's own interception point (``agent``), a command
      hook the host runs per tool call, a server's middleware, or the stdio proxy.
    - ``takes`` / ``returns``: what ``install(target, policy=None, **options)`` takes as ``target`` and returns;
      empty when the adapter has no ``install`` (a command hook is configured in the host's settings instead).
    - ``demo``: ``hostshape demo`` runs this host (it has an offline harness).
    """

    key: str
    extra: str
    framework: str
    adapter: str = ""
    seam: Seam = "agent"
    takes: str = ""
    returns: str = ""
    demo: bool = True

    @property
    def adapter_module(self) -> str:
        return self.adapter or f"hostshape.adapters.{self.key}"


HOSTS: tuple[Host, ...] = (
    Host(
        "claude",
        "claude",
        "claude_agent_sdk",
        takes="`ClaudeAgentOptions`",
        returns="a copy with the hooks, the `hostshape` MCP server and permission to call it",
    ),
    Host(
        "openai_agents",
        "openai",
        "agents",
        takes="`Agent`",
        returns="`(agent copy with hostshape_read, shaping)`: `Runner.run(agent, ..., **shaping.runner_kwargs())`",
    ),
    Host(
        "langchain",
        "langchain",
        "langchain_mcp_adapters",
        takes="`MultiServerMCPClient`",
        returns="`(client with the interceptor outermost, hostshape_read tool)`",
    ),
    Host(
        "pydantic_ai",
        "pydantic-ai",
        "pydantic_ai.mcp",
        takes="toolsets (e.g. `load_mcp_toolsets(...)`)",
        returns="the toolsets, shaped, plus the retrieval toolset",
    ),
    Host(
        "adk",
        "adk",
        "google.adk",
        takes="`LlmAgent` or `App`",
        returns="a clone with the callback (agent) or plugin (app) and `hostshape_read`",
    ),
    Host(
        "strands",
        "strands",
        "strands",
        takes="`Agent`",
        returns="the agent, with the hook provider and `hostshape_read`",
    ),
    Host(
        "llamaindex",
        "llamaindex",
        "llama_index.tools.mcp",
        takes="a list of `FunctionTool` (e.g. `await McpToolSpec(client).to_tool_list_async()`)",
        returns="the tools with hostshape's callbacks, plus `hostshape_read`",
    ),
    Host(
        "agent_framework",
        "agent-framework",
        "agent_framework",
        takes="`Agent`",
        returns="the agent, with the function middleware and `hostshape_read`",
    ),
    Host(
        "agno",
        "agno",
        "agno.tools.mcp",
        takes="`Agent`",
        returns="the agent, with the tool hook and `hostshape_read`",
    ),
    Host(
        "crewai",
        "crewai",
        "crewai",
        takes="`Agent` or `Crew`",
        returns="the same; its agents get the hook (global in CrewAI: `uninstall()`) and `hostshape_read`",
    ),
    Host("codex", "", "", seam="command hook", demo=False),
    Host("fastmcp", "fastmcp", "fastmcp", seam="server", demo=False),
    # Claude Code with no hook, its server behind `hostshape proxy` (hostshape/testing/proxy.py)
    Host("proxy", "claude", "claude_agent_sdk", adapter="hostshape.proxy", seam="proxy"),
)


def hosts(*, seam: Seam | None = None, demo: bool | None = None, installs: bool | None = None) -> list[Host]:
    """The rows of ``HOSTS`` with that ``seam``, that the demo runs (``demo``) or that have an ``install``."""
    return [
        h
        for h in HOSTS
        if (seam is None or h.seam == seam)
        and (demo is None or h.demo == demo)
        and (installs is None or bool(h.takes) == installs)
    ]


def install_table() -> str:
    """The README's table of what each ``install`` takes and returns (``python -m hostshape.adapters.registry``)."""
    import importlib

    lines = ["| host | `target` | returns |", "|---|---|---|"]
    for host in hosts(installs=True):
        name = importlib.import_module(host.adapter_module).HOST
        lines.append(f"| {name} | {host.takes} | {host.returns} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(install_table())

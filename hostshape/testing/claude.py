"""Run the real bundled Claude Code CLI offline, against a scripted loopback model and the example MCP server.

``await run("list_pull_requests", policy=Policy(budget=4000))`` starts ``claude_agent_sdk.query`` with
ANTHROPIC_BASE_URL pointing at an ``AnthropicServer`` on 127.0.0.1, a fresh CLAUDE_CONFIG_DIR and working directory,
no settings files, and the example server as the stdio MCP server ``corpus``. The scripted model calls the tool once
(then any further ``script`` steps) and ends; ``HostRun.received`` is the exact text of the first tool result it
received. ``policy=None`` runs Claude Code without hostshape.

The environment is the one under which Claude Code 2.1.332 made no outside call (../../shared/HOSTS.md); without
ENABLE_TOOL_SEARCH=false MCP tools hide behind a ToolSearch tool and are never offered to the model.

:func:`scripted_model` gives the model side for your own ``query(...)``: a loopback Messages API playing a
:class:`~hostshape.testing.script.Script`, used as a context manager whose ``env`` is the CLI's environment::

    with scripted_model(("mcp__corpus__list_pull_requests", {})) as model:
        options.env.update(model.env)        # options: your ClaudeAgentOptions
        ...run query(prompt, options=options)...
    model.received  # each tool result, as the model read it
"""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
import tempfile
from collections.abc import AsyncGenerator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from hostshape.policy import Policy
from hostshape.testing import HostRun, mcp_server_command
from hostshape.testing.anthropic_server import AnthropicServer, Reply, Step, Text, ToolUse
from hostshape.testing.script import MAX_CALLS, Call, NextCall, Script

if TYPE_CHECKING:
    from claude_agent_sdk.types import HookMatcher, SyncHookJSONOutput

__all__ = ["SERVER", "ScriptedModel", "offline_env", "run", "scripted_model"]

SERVER = "corpus"


def offline_env(base_url: str, config_dir: str | Path) -> dict[str, str]:
    """The environment under which the bundled CLI talks only to ``base_url`` (observed with Claude Code 2.1.332)."""
    return {
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "dummy",
        "CLAUDE_CONFIG_DIR": str(config_dir),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_NON_ESSENTIAL_MODEL_CALLS": "1",
        "ENABLE_TOOL_SEARCH": "false",
    }


class ScriptedModel(AnthropicServer):
    """An ``AnthropicServer`` playing ``script``: each agent-loop request's new tool results go to the script, whose
    call (a ``ToolUse`` with the name as Claude Code offers it, ``mcp__<server>__<tool>``) or final text is the
    answer. As a context manager it also makes a fresh CLI config folder: ``env`` is the CLI's environment then.
    ``conversation`` is the script, ``received`` its texts."""

    def __init__(self, script: Script) -> None:
        super().__init__([self._reply] * (MAX_CALLS + 2), final=script.final_text)
        self.conversation = script
        self._config: str | None = None

    @property
    def received(self) -> list[str]:
        return self.conversation.received

    @property
    def env(self) -> dict[str, str]:
        """``offline_env`` for this server and its config folder (only inside the ``with`` block)."""
        assert self._config is not None, "use the scripted model as a context manager"
        return offline_env(self.base_url, self._config)

    def __enter__(self) -> ScriptedModel:
        self._config = tempfile.mkdtemp(prefix="hostshape-claude-")
        super().__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        if self._config is not None:
            shutil.rmtree(self._config, ignore_errors=True)
            self._config = None

    def _reply(self, server: AnthropicServer) -> Reply:
        new = server.tool_results()[len(self.conversation.received) :]
        call = self.conversation.reply(server.requests[-1], new)
        return Text(self.conversation.final_text) if call is None else ToolUse(call[0], call[1])


def scripted_model(first: Call | None, next_call: NextCall | None = None, final_text: str = "done") -> ScriptedModel:
    """A scripted Claude model that calls ``first``, then ``next_call(received)`` until it returns None, then says
    ``final_text`` (:class:`~hostshape.testing.script.Script`): ``with scripted_model(...) as model:
    options.env.update(model.env)``."""
    return ScriptedModel(Script(first, next_call, final_text))


async def run(
    tool: str,
    *,
    policy: Policy | None,
    arguments: dict[str, Any] | None = None,
    script: Sequence[Step] = (),
    env: Mapping[str, str] | None = None,
    hooks: Mapping[str, Sequence[Any]] | None = None,
    retrieval: bool = True,
    workdir: str | Path | None = None,
    timeout: float = 90.0,
    prompt: str = "Use the tool.",
    server_command: Sequence[str] | None = None,
) -> HostRun:
    """One Claude Code run in which the scripted model calls ``tool`` on the ``corpus`` server with ``arguments``.

    - ``policy``: install hostshape (``install``: hooks, and the retrieval tool when ``retrieval``); None for
      Claude Code as it is.
    - ``script``: further model steps after the first tool call (see ``anthropic_server``), e.g. a retrieval call.
    - ``env``: overrides, e.g. ``{"ENABLE_MCP_LARGE_OUTPUT_FILES": "false"}`` or ``{"MAX_MCP_OUTPUT_TOKENS": "8000"}``.
    - ``hooks``: extra ``ClaudeAgentOptions.hooks`` entries, added beside hostshape's.
    - ``workdir``: keep the CLI's config dir (``config/``) and cwd (``cwd/``) there instead of a removed temp dir.
    - ``server_command``: argv of the ``corpus`` server instead of the example server (e.g. ``hostshape proxy``).

    ``extra`` holds ``tool_results`` (every tool result text, in order), ``hook_inputs`` (every PostToolUse /
    PostToolUseFailure input, as the hook received it), ``messages`` (the SDK messages), ``count_token_requests``,
    ``stderr`` and ``server`` (the AnthropicServer). Raises TimeoutError after ``timeout`` seconds.
    """
    from hostshape.adapters._shared import require

    require("claude", "claude_agent_sdk")
    from claude_agent_sdk import ClaudeAgentOptions, HookMatcher, query

    qualified = tool if tool.startswith("mcp__") else f"mcp__{SERVER}__{tool}"
    hook_inputs: list[dict[str, Any]] = []

    async def record(input_data: Any, tool_use_id: str | None, context: Any) -> SyncHookJSONOutput:
        hook_inputs.append(dict(input_data))
        return {}

    own_dir = workdir is None
    root = Path(tempfile.mkdtemp(prefix="hostshape-claude-")) if own_dir else Path(workdir)  # type: ignore[arg-type]
    config_dir, cwd = root / "config", root / "cwd"
    config_dir.mkdir(parents=True, exist_ok=True)
    cwd.mkdir(parents=True, exist_ok=True)
    stderr: list[str] = []
    messages: list[Any] = []
    steps: list[Step] = [ToolUse(qualified, dict(arguments or {})), *script]
    try:
        with AnthropicServer(steps) as server:
            command = list(server_command) if server_command else mcp_server_command()
            all_hooks: dict[Any, list[Any]] = {
                "PostToolUse": [HookMatcher(matcher="mcp__.*", hooks=[record])],
                "PostToolUseFailure": [HookMatcher(matcher="mcp__.*", hooks=[record])],
            }
            for event, matchers in (hooks or {}).items():
                all_hooks.setdefault(event, []).extend(matchers)
            options = ClaudeAgentOptions(
                env={**offline_env(server.base_url, config_dir), **(env or {})},
                cwd=str(cwd),
                setting_sources=[],
                mcp_servers={SERVER: {"type": "stdio", "command": command[0], "args": command[1:]}},
                allowed_tools=[f"mcp__{SERVER}"],
                hooks=all_hooks,
                max_turns=len(steps) + 2,
                stderr=stderr.append,
            )
            if policy is not None:
                from hostshape.adapters.claude import hostshape_hooks, install

                if retrieval:
                    options = install(options, policy)
                else:
                    merged: dict[Any, list[HookMatcher]] = dict(options.hooks or {})
                    for event, matchers in hostshape_hooks(policy).items():
                        merged[event] = [*merged.get(event, []), *matchers]
                    options = dataclasses.replace(options, hooks=merged)

            async def drive() -> None:
                # query() is an async generator (it has aclose); its annotation only says AsyncIterator
                stream = cast("AsyncGenerator[Any, None]", query(prompt=prompt, options=options))
                try:
                    async for message in stream:
                        messages.append(message)
                finally:  # also on timeout: closing the stream terminates the CLI subprocess
                    await stream.aclose()

            await asyncio.wait_for(drive(), timeout)
            results = server.tool_results()
            return HostRun(
                host="claude",
                tool=qualified,
                received=results[0] if results else "",
                requests=list(server.requests),
                extra={
                    "tool_results": results,
                    "tool_result_blocks": server.tool_result_blocks(),
                    "hook_inputs": hook_inputs,
                    "messages": messages,
                    "count_token_requests": len(server.count_token_requests),
                    "stderr": stderr,
                    "server": server,
                    "config_dir": str(config_dir),
                },
            )
    finally:
        if own_dir:
            shutil.rmtree(root, ignore_errors=True)

"""Claude Agent SDK / Claude Code: a PostToolUse hook that reshapes MCP tool results with ``updatedToolOutput``
(and the legacy ``updatedMCPToolOutput`` for older CLIs).

The hook fires AFTER Claude Code's own limit (MAX_MCP_OUTPUT_TOKENS, default 25,000): a result under the limit is
replaced by the shaped text; a result over it reaches the hook only as a notice naming the file Claude Code saved it
to, and the hook rescues it by reading that file (this call's file in the session's own ``tool-results`` folder, a
regular file of bounded size with one link, owned by this user) and shaping the full original. When large-output
files are disabled (ENABLE_MCP_LARGE_OUTPUT_FILES=false) the host has already cut the result to its first
characters: nothing can be rescued, and the shaped text says the host truncated it and that the rest cannot be
retrieved. docs/hosts.md lists the facts, where in the CLI they were read, and the tests that prove each case
with the real bundled CLI.

The package splits by concern: ``hook_input`` (one hook input in, the hook output out; also behind
``hostshape hook claude-code``), ``saved_file`` (reading the saved result safely), and this module, the Claude
Agent SDK glue. Claude Code's notices and limits live in ``hostshape.adapters.claude_code``, shared with the hook
command's fast path.

Use it in one line::

    options = install(ClaudeAgentOptions(...), Policy(budget=4000))

which adds the hooks, the in-process ``hostshape`` MCP server with the retrieval tool ``hostshape_read`` and
permission to call it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hostshape.adapters._shared import default_policy, read_page, require
from hostshape.adapters.claude.hook_input import RETRIEVAL_SERVER, shape_hook_input
from hostshape.adapters.claude.saved_file import RESCUE_MAX_BYTES, read_saved_result, saved_result_path
from hostshape.adapters.claude_code import HOST_MAX_CHARS
from hostshape.policy import Policy

if TYPE_CHECKING:  # pragma: no cover
    from claude_agent_sdk import ClaudeAgentOptions, HookMatcher
    from claude_agent_sdk.types import McpSdkServerConfig

__all__ = [
    "EXTRA",
    "FIRES",
    "HOST",
    "HOST_MAX_CHARS",
    "INTERCEPTION_POINT",
    "RESCUE_MAX_BYTES",
    "RETRIEVAL_SERVER",
    "hostshape_hooks",
    "hostshape_options",
    "install",
    "read_saved_result",
    "retrieval_server",
    "saved_result_path",
    "shape_hook_input",
]

HOST = "Claude Agent SDK (Claude Code)"
INTERCEPTION_POINT = "PostToolUse hook (updatedToolOutput)"
FIRES = "after the host limit"
EXTRA = "claude"

logger = logging.getLogger("hostshape.adapters.claude")


# -- Claude Agent SDK glue --------------------------------------------------------------------------------------------
def hostshape_hooks(
    policy: Policy | None = None, *, matcher: str = "mcp__.*", max_file_bytes: int = RESCUE_MAX_BYTES
) -> dict[str, list[HookMatcher]]:
    """The ``hooks`` for ``ClaudeAgentOptions``: PostToolUse and PostToolUseFailure on MCP tools (``matcher`` regex).

    The callbacks always return a dict (``{}`` = leave the result), shape in a worker thread and never raise.
    """
    require(EXTRA, "claude_agent_sdk")
    import anyio
    from claude_agent_sdk import HookMatcher

    policy = default_policy(policy)

    async def post_tool_use(input_data: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        try:
            out = await anyio.to_thread.run_sync(
                lambda: shape_hook_input(input_data, policy, max_file_bytes=max_file_bytes)
            )
        except Exception:  # e.g. cancelled thread pool; shape_hook_input itself never raises
            logger.exception("hostshape PostToolUse hook failed")
            out = None
        return out or {}

    async def post_tool_use_failure(input_data: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        try:
            out = await anyio.to_thread.run_sync(lambda: shape_hook_input(input_data, policy))
        except Exception:
            logger.exception("hostshape PostToolUseFailure hook failed")
            out = None
        return out or {}

    # The SDK types each callback's input as a union of TypedDicts; these accept any mapping.
    return {
        "PostToolUse": [HookMatcher(matcher=matcher, hooks=[post_tool_use])],  # type: ignore[list-item]
        "PostToolUseFailure": [HookMatcher(matcher=matcher, hooks=[post_tool_use_failure])],  # type: ignore[list-item]
    }


def retrieval_server(policy: Policy) -> McpSdkServerConfig:
    """An in-process MCP server named ``hostshape`` with one tool, ``hostshape_read(handle, query, cursor, section,
    lines, grep)``.

    The tool returns ``hostshape.wayback.retrieve.read(...)``: a budgeted page of a saved full result and the next
    cursor.
    """
    require(EXTRA, "claude_agent_sdk")
    from claude_agent_sdk import create_sdk_mcp_server, tool

    from hostshape.wayback.retrieve import ARGUMENTS, RETRIEVAL_DESCRIPTION, RETRIEVAL_TOOL

    schema = {
        "type": "object",
        "properties": {name: {"type": "string", "description": text} for name, text in ARGUMENTS.items()},
        "required": ["handle"],
    }

    @tool(RETRIEVAL_TOOL, RETRIEVAL_DESCRIPTION, schema)
    async def hostshape_read(args: dict[str, Any]) -> dict[str, Any]:
        import anyio

        text = await anyio.to_thread.run_sync(
            lambda: read_page(
                args.get("handle"),
                args.get("query"),
                args.get("cursor"),
                section=args.get("section"),
                lines=args.get("lines"),
                grep=args.get("grep"),
                policy=policy,
            )
        )
        return {"content": [{"type": "text", "text": text}]}

    return create_sdk_mcp_server(RETRIEVAL_SERVER, tools=[hostshape_read])


def _retrieval_tool_name() -> str:
    from hostshape.wayback.retrieve import RETRIEVAL_TOOL

    return f"mcp__{RETRIEVAL_SERVER}__{RETRIEVAL_TOOL}"


def hostshape_options(policy: Policy | None = None, *, matcher: str = "mcp__.*") -> dict[str, Any]:
    """``hooks``, ``mcp_servers`` and ``allowed_tools`` that install the adapter and the retrieval tool together.

    The policy's ``retrieval_tool`` is set to the name the model sees (``mcp__hostshape__hostshape_read``) so the
    envelope's hint names it. Pass as ``ClaudeAgentOptions(**hostshape_options(policy), ...)``, or let ``install``
    merge them into options you already have.
    """
    policy = default_policy(policy, retrieval_tool=_retrieval_tool_name())
    return {
        "hooks": hostshape_hooks(policy, matcher=matcher),
        "mcp_servers": {RETRIEVAL_SERVER: retrieval_server(policy)},
        "allowed_tools": [_retrieval_tool_name()],
    }


def install(
    options: ClaudeAgentOptions | Policy, policy: Policy | None = None, *, matcher: str = "mcp__.*"
) -> ClaudeAgentOptions:
    """A copy of ``options`` with hostshape's hooks, the retrieval server and permission to call it added.

    What ``options`` already has is kept (hostshape's matchers are appended). When ``options.mcp_servers`` is a
    config file path or JSON string, which cannot be merged with an in-process server, only the hooks are added and
    envelopes name the saved file instead of the tool. The former form ``install(policy)`` returns new options with
    hostshape installed. Raises ImportError naming the extra without the SDK, TypeError for anything else.
    """
    require(EXTRA, "claude_agent_sdk")
    from claude_agent_sdk import ClaudeAgentOptions

    if isinstance(options, Policy) and policy is None:  # the former form, install(policy)
        policy = options
        options = ClaudeAgentOptions()
    if not isinstance(options, ClaudeAgentOptions):
        raise TypeError(
            f"install() takes ClaudeAgentOptions (and a Policy second), not {type(options).__name__}: "
            "install(ClaudeAgentOptions(...), Policy(...))"
        )
    policy = default_policy(policy)
    hooks: dict[Any, list[Any]] = {event: list(ms) for event, ms in (options.hooks or {}).items()}
    if isinstance(options.mcp_servers, Mapping):
        pieces = hostshape_options(policy, matcher=matcher)
        servers: Any = {**options.mcp_servers, **pieces["mcp_servers"]}
        allowed = list(options.allowed_tools) + [t for t in pieces["allowed_tools"] if t not in options.allowed_tools]
        ours = pieces["hooks"]
    else:
        logger.warning("hostshape install: mcp_servers is not a dict, so the retrieval tool was not added")
        servers, allowed = options.mcp_servers, list(options.allowed_tools)
        ours = hostshape_hooks(policy, matcher=matcher)
    for event, matchers in ours.items():
        hooks.setdefault(event, []).extend(matchers)
    return dataclasses.replace(options, hooks=hooks, mcp_servers=servers, allowed_tools=allowed)

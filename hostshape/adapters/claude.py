"""Claude Agent SDK / Claude Code: a PostToolUse hook that reshapes MCP tool results with ``updatedMCPToolOutput``.

The hook fires AFTER Claude Code's own limit (MAX_MCP_OUTPUT_TOKENS, default 25,000): a result under the limit is
replaced by the shaped text; a result over it reaches the hook only as a notice naming the file Claude Code saved it
to, and the hook rescues it by reading that file (only inside the session's own ``tool-results`` folder, a regular
file of bounded size) and shaping the full original. When large-output files are disabled
(ENABLE_MCP_LARGE_OUTPUT_FILES=false) the host has already cut the result to its first characters: nothing can be
rescued, and the shaped text says the host truncated it. tests/test_claude_adapter.py proves each case with the real
bundled CLI (test_under_limit_result_is_replaced, test_overflow_is_rescued_from_the_saved_file,
test_host_truncation_is_stated).

Observed on claude-agent-sdk 0.2.189 with its bundled Claude Code 2.1.332 (offsets are into
``claude_agent_sdk/_bundled/claude``, a Bun binary whose JavaScript is stored as text):

- an empty ``updatedMCPToolOutput`` is ignored (``if(ie.hookSpecificOutput.updatedMCPToolOutput)``, offset
  345568878), so the replacement is never empty;
- any tool result over ``mw=50000`` characters is persisted to a file after the hook and replaced by a 2,000
  character preview (``var mw=50000 ... vnt=2000``, offset 330696301), so the replacement stays under 50,000;
- the overflow notice reads ``Error: result (N characters) exceeds maximum allowed tokens. Output has been saved to
  <path>.`` (offset 342239580); the file lies in ``join(projectDir, sessionId, "tool-results")`` (``H0s``, offset
  334526462), i.e. the transcript path without ``.jsonl`` plus ``/tool-results``. Sessions that skip prompt history
  keep that folder in a temporary directory instead (same offset); the rescue then declines and the notice stays;
- truncation mode appends ``[OUTPUT TRUNCATED - exceeded <limit> token limit]`` (``Ent``, offset 330696301) to
  the first limit x 4 characters; whole records at the start of a cut JSON array are kept and shaped;
- failed tool calls fire PostToolUseFailure, which accepts only ``additionalContext`` (offset 331064620): the
  adapter adds a one-line hint only when the error itself is over the budget, since it cannot be shortened.

Use it in one line::

    options = install(ClaudeAgentOptions(...), Policy(budget=4000))

which adds the hooks, the in-process ``hostshape`` MCP server with the retrieval tool ``hostshape_read`` and
permission to call it. ``shape_hook_input`` is the framework-neutral core of the hook (used by
``hostshape hook claude-code`` for command hooks); it needs no SDK.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hostshape.policy import Policy

if TYPE_CHECKING:  # pragma: no cover
    from claude_agent_sdk import ClaudeAgentOptions, HookMatcher
    from claude_agent_sdk.types import McpSdkServerConfig

__all__ = [
    "FIRES",
    "HOST",
    "INTERCEPTION_POINT",
    "HOST_MAX_CHARS",
    "RESCUE_MAX_BYTES",
    "RETRIEVAL_SERVER",
    "hostshape_hooks",
    "hostshape_options",
    "read_saved_result",
    "retrieval_server",
    "saved_result_path",
    "install",
    "shape_hook_input",
]

HOST = "Claude Agent SDK (Claude Code)"
INTERCEPTION_POINT = "PostToolUse hook (updatedMCPToolOutput)"
FIRES = "after the host limit"

# Claude Code persists any tool result over 50,000 characters after the hook (mw=50000, bundled CLI 2.1.332 offset
# 330696301); stay clearly below it.
HOST_MAX_CHARS = 49_000
# Largest saved file the rescue will read.
RESCUE_MAX_BYTES = 32 * 1024 * 1024
# Name of the in-process MCP server carrying the retrieval tool; Claude Code exposes it as mcp__hostshape__<tool>.
RETRIEVAL_SERVER = "hostshape"

logger = logging.getLogger("hostshape.adapters.claude")

# Bundled CLI 2.1.332 offset 342239580: the notice may be preceded by a note about artifact content, so search.
_SAVED_NOTICE = re.compile(
    r"Error: result \((?P<size>[\d,.]+) characters[^)]*\) exceeds maximum allowed tokens\. "
    r"Output has been saved to (?P<path>.+?)\.(?:\r?\n|$)"
)
_PARTIAL_SAVE = "exceeded the persist byte limit"
# Bundled CLI 2.1.332 offset 330696301: Ent="[OUTPUT TRUNCATED - exceeded " then "<limit> token limit]".
_TRUNCATED = re.compile(r"\n*\[OUTPUT TRUNCATED - exceeded (?P<limit>[\d,]+) token limit\]")


# -- the saved-file rescue ----------------------------------------------------------------------------------------
def saved_result_path(notice_path: str, transcript_path: str) -> Path | None:
    """The file named in an overflow notice, if it lies directly in this session's ``tool-results`` folder.

    The folder is ``transcript_path`` without ``.jsonl`` plus ``/tool-results`` (observed with Claude Code 2.1.332).
    Returns None for a relative path, a path outside that folder (after resolving every symlink of its parents), or
    a name that is itself a symlink or not a regular file. Does not read the file.
    """
    if not notice_path or not transcript_path or not transcript_path.endswith(".jsonl"):
        return None
    path = Path(notice_path)
    if not path.is_absolute():
        return None
    folder = Path(transcript_path[: -len(".jsonl")]) / "tool-results"
    try:
        if os.path.realpath(path.parent) != os.path.realpath(folder):
            return None
        info = os.lstat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):  # lstat: a symlink is S_ISLNK, never S_ISREG
        return None
    return path


def read_saved_result(notice_path: str, transcript_path: str, *, max_bytes: int = RESCUE_MAX_BYTES) -> str | None:
    """The text of a file Claude Code saved an oversized result to, or None when it must be left alone.

    Reads only what ``saved_result_path`` accepts, opened without following symlinks, checked again on the open
    descriptor, and at most ``max_bytes`` long (a larger file is not read at all). Never raises.
    """
    path = saved_result_path(notice_path, transcript_path)
    if path is None:
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(max_bytes + 1)
        if len(data) > max_bytes:
            return None
        return data.decode("utf-8", errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)


# -- the hook, framework-neutral ------------------------------------------------------------------------------------
def shape_hook_input(
    input_data: Mapping[str, Any], policy: Policy, *, max_file_bytes: int = RESCUE_MAX_BYTES
) -> dict[str, Any] | None:
    """The hook output for one Claude Code hook input, or None to leave the host's result as it is.

    - PostToolUse on an MCP tool: ``{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput":
      text}}`` with ``text`` the shaped result (never empty, at most ``HOST_MAX_CHARS`` characters and within the
      tool's budget); an overflow notice is replaced by the shaped content of the saved file; a host-truncated
      result is shaped and says that the host truncated it.
    - PostToolUseFailure: ``additionalContext`` only when the error is over the tool's budget (hooks cannot shorten
      failed results), else None.
    - Anything else (other events, non-MCP tools, the retrieval tool itself): None.

    Never raises: a fault is logged and gives None, or a short refusal when ``policy.on_fault == "refuse"``.
    """
    try:
        event = input_data.get("hook_event_name")
    except Exception:  # not a mapping
        logger.warning("hostshape ignored a Claude Code hook input that is not an object")
        return None
    if event == "PostToolUseFailure":
        try:
            return _failure_output(input_data, policy)
        except Exception:  # a hint is optional: on any fault, add nothing
            logger.exception("hostshape failed on a PostToolUseFailure input")
            return None
    try:
        if event not in ("PostToolUse", None) or "tool_response" not in input_data:
            return None
        names = _tool_names(input_data)
        if names is None:
            return None
        server, tool = names
        text = _shaped_text(input_data, policy, server, tool, max_file_bytes)
    except Exception as exc:  # never raise into the host
        logger.exception("hostshape failed on a Claude Code hook input")
        text = _refusal(policy, exc)
    if not text:
        return None
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": text}}


def _tool_names(input_data: Mapping[str, Any]) -> tuple[str, str] | None:
    """(server, tool) of an MCP tool call, or None for built-in tools and hostshape's own retrieval tool."""
    qualified = input_data.get("tool_name")
    if not isinstance(qualified, str) or not qualified.startswith("mcp__"):
        return None
    info = input_data.get("mcp_server")
    name = info.get("name") if isinstance(info, Mapping) else None
    if isinstance(name, str) and qualified.startswith(f"mcp__{name}__"):
        server, tool = name, qualified[len(f"mcp__{name}__") :]
    else:
        from hostshape.policy import split_tool_name

        maybe_server, tool = split_tool_name(qualified)
        if maybe_server is None:
            return None
        server = maybe_server
    if server == RETRIEVAL_SERVER and _is_retrieval_tool(tool):
        return None  # its pages are budgeted already; reshaping them would not be idempotent
    return server, tool


def _is_retrieval_tool(tool: str) -> bool:
    from hostshape.retrieve import RETRIEVAL_TOOL

    return tool == RETRIEVAL_TOOL


def _host_policy(policy: Policy, *, reserve_tokens: int = 0, reserve_chars: int = 0) -> Policy:
    """``policy`` capped at the host's character limit, with room kept for a note of our own."""
    max_chars = min(policy.max_chars or HOST_MAX_CHARS, HOST_MAX_CHARS) - reserve_chars
    changes: dict[str, Any] = {"max_chars": max(1, max_chars)}
    if reserve_tokens:
        changes["budget"] = max(1, policy.budget - reserve_tokens)
        changes["rules"] = tuple(
            dataclasses.replace(r, budget=max(1, r.budget - reserve_tokens)) if r.budget is not None else r
            for r in policy.rules
        )
    return policy.replace(**changes)


def _shaped_text(
    input_data: Mapping[str, Any], policy: Policy, server: str, tool: str, max_file_bytes: int
) -> str | None:
    from hostshape import shape

    raw = input_data.get("tool_response")
    args = input_data.get("tool_input") if isinstance(input_data.get("tool_input"), Mapping) else None
    kwargs: dict[str, Any] = {"tool": tool, "server": server, "args": dict(args) if args else None}

    if isinstance(raw, str):
        saved = _SAVED_NOTICE.search(raw)
        if saved is not None:
            return _rescue(raw, saved, input_data, policy, max_file_bytes, kwargs)
        truncated = _TRUNCATED.search(raw)
        if truncated is not None:
            return _host_truncated(raw, truncated, policy, kwargs)

    res = shape(raw, policy=_host_policy(policy), **kwargs)
    return _accept(res, policy) if res.changed else None


def _rescue(
    notice: str,
    saved: re.Match[str],
    input_data: Mapping[str, Any],
    policy: Policy,
    max_file_bytes: int,
    kwargs: dict[str, Any],
) -> str | None:
    """Shape the full original Claude Code saved to a file; None (keep the notice) when it may not be read."""
    transcript = input_data.get("transcript_path")
    content = read_saved_result(saved.group("path"), transcript if isinstance(transcript, str) else "",
                                max_bytes=max_file_bytes)
    if content is None:
        logger.info("left Claude Code's overflow notice: saved file %r is not readable here", saved.group("path"))
        return None
    if _PARTIAL_SAVE in notice:  # the host saved only a prefix; say so like truncation mode
        notes = ("[hostshape] Claude Code saved only the first part of this result (its persist byte limit); "
                 "what follows is shaped from that part, the rest was not kept.",
                 "[hostshape] Claude Code kept only the first part of this result.")
        return _with_note(content, notes, policy, kwargs)
    from hostshape import shape

    res = shape(content, policy=_host_policy(policy), **kwargs)
    # Even a result that fits must replace the notice: unchanged here means "the full original, unwrapped".
    return _accept(res, policy, fits_is_replacement=True)


def _host_truncated(raw: str, truncated: re.Match[str], policy: Policy, kwargs: dict[str, Any]) -> str | None:
    """Shape what Claude Code kept of a result it truncated, and say that it did."""
    limit = truncated.group("limit")
    kept = _unwrap_partial_result(raw[: truncated.start()])
    records = _complete_records(kept)
    what = f"; the {len(records):,} records it delivered whole are below" if records else ""
    notes = (
        f"[hostshape] Claude Code truncated this tool result to its first {len(kept):,} characters before hostshape "
        f"saw it (over its {limit}-token limit, with ENABLE_MCP_LARGE_OUTPUT_FILES=false){what}. The rest was never "
        "delivered and cannot be retrieved: ask the tool for a narrower or paginated result, or enable large-output "
        "files so hostshape can shape the full result.",
        "[hostshape] Claude Code truncated this result before hostshape saw it; the rest cannot be retrieved.",
    )
    return _with_note(records if records else kept, notes, policy, kwargs)


def _complete_records(text: str) -> list[Any] | None:
    """The whole elements at the start of a cut JSON array (``[{...},{...},{..``), or None if it is not one."""
    import json

    if not text.lstrip().startswith("["):
        return None
    decoder = json.JSONDecoder()
    pos, records = text.index("[") + 1, []
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            value, pos = decoder.raw_decode(text, pos)
        except ValueError:
            break
        records.append(value)
    return records or None


def _with_note(content: Any, notes: tuple[str, ...], policy: Policy, kwargs: dict[str, Any]) -> str | None:
    """The first of ``notes`` that leaves room, on its own first line, then ``content`` shaped into the rest.

    With a budget too small for any note, ``content`` is shaped alone (the budget is the harder promise).
    """
    from hostshape import shape
    from hostshape.tokens import count_tokens

    budget = policy.budget_for(kwargs.get("tool"), kwargs.get("server"))
    for note in notes:
        # +1: the newline between note and body may merge differently with the body's first token.
        reserve = math.ceil(count_tokens(note + "\n", policy.encoding) * policy.safety_factor) + 1
        if reserve <= budget // 2:
            break
    else:
        note, reserve = "", 0
    res = shape(content, policy=_host_policy(policy, reserve_tokens=reserve, reserve_chars=len(note) + 1), **kwargs)
    body = _accept(res, policy, fits_is_replacement=True)
    if body is None or not note:
        return body
    text = f"{note}\n{body}"
    if count_tokens(text, policy.encoding) * policy.safety_factor > budget:  # pragma: no cover - reserve is ample
        return body
    return text


def _unwrap_partial_result(prefix: str) -> str:
    """The readable text of a cut ``{"result":"..."}`` (FastMCP ``-> str``) prefix; other text unchanged."""
    import json

    head = '{"result":"'
    if not prefix.startswith(head):
        return prefix
    body = prefix[len(head) :]
    # Drop a dangling escape so the string literal can be closed: at most 6 chars (\\uXXXX) need trimming.
    for cut in range(0, 7):
        candidate = body[: len(body) - cut] if cut else body
        try:
            value = json.loads(f'"{candidate}"')
        except ValueError:
            continue
        return value if isinstance(value, str) else prefix
    return prefix


def _accept(res: Any, policy: Policy, *, fits_is_replacement: bool = False) -> str | None:
    """The text to hand the host from a Shaped result, checked against the host's limits.

    ``res.changed`` False means "keep the host's result" (it fits, or a fault with on_fault="pass"); where the
    host's result is only a notice (``fits_is_replacement``) a result that fits is handed over as it is.
    """
    if res.changed:
        text = res.text
    elif res.fault is None and fits_is_replacement:
        text = res.text
    else:
        return None
    if not text:
        return None
    if len(text) > HOST_MAX_CHARS:
        logger.warning("shaped text for %s is %d characters, over Claude Code's limit; left as the host made it",
                       res.tool, len(text))
        return _refusal(policy, RuntimeError(f"shaped text is {len(text)} characters"))
    return text


def _refusal(policy: Policy, exc: BaseException) -> str | None:
    """None (fail open) or a short refusal naming the remedy (fail closed), per ``policy.on_fault``.

    The refusal is the longest of three wordings that fits the smallest budget in the policy.
    """
    if policy.on_fault != "refuse":
        return None
    from hostshape.tokens import count_tokens

    wordings = (
        f"[hostshape] This tool result was withheld: hostshape failed to shape it ({type(exc).__name__}). "
        "Retry the call with narrower arguments, or set on_fault='pass' to let unshaped results through.",
        "[hostshape] result withheld (hostshape failed); retry with narrower arguments.",
        "[hostshape] withheld",
    )
    budget = min([policy.budget, *(r.budget for r in policy.rules if r.budget is not None)])
    for text in wordings:
        if count_tokens(text, policy.encoding) * policy.safety_factor <= budget:
            return text
    return wordings[-1]


def _failure_output(input_data: Mapping[str, Any], policy: Policy) -> dict[str, Any] | None:
    """PostToolUseFailure: a hint only when the error is over budget, since a hook cannot replace it."""
    if input_data.get("is_interrupt"):
        return None
    error = input_data.get("error")
    names = _tool_names(input_data)
    if not isinstance(error, str) or names is None:
        return None
    from hostshape.tokens import count_tokens

    server, tool = names
    budget = policy.budget_for(tool, server)
    tokens = count_tokens(error, policy.encoding)
    if tokens * policy.safety_factor <= budget:
        return None
    hint = (
        f"[hostshape] The error above is {tokens:,} tokens, over this tool's budget of {budget:,}; Claude Code does "
        "not let hooks shorten failed results, so it is shown as the tool returned it."
    )
    return {"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": hint}}


# -- Claude Agent SDK glue --------------------------------------------------------------------------------------------
def hostshape_hooks(
    policy: Policy | None = None, *, matcher: str = "mcp__.*", max_file_bytes: int = RESCUE_MAX_BYTES
) -> dict[str, list[HookMatcher]]:
    """The ``hooks`` for ``ClaudeAgentOptions``: PostToolUse and PostToolUseFailure on MCP tools (``matcher`` regex).

    The callbacks always return a dict (``{}`` = leave the result), shape in a worker thread and never raise.
    """
    from hostshape.adapters._require import require

    require("claude", "claude_agent_sdk")
    import anyio
    from claude_agent_sdk import HookMatcher

    policy = policy if policy is not None else Policy()

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

    return {
        "PostToolUse": [HookMatcher(matcher=matcher, hooks=[post_tool_use])],
        "PostToolUseFailure": [HookMatcher(matcher=matcher, hooks=[post_tool_use_failure])],
    }


def retrieval_server(policy: Policy) -> McpSdkServerConfig:
    """An in-process MCP server named ``hostshape`` with one tool, ``hostshape_read(handle, query, cursor)``.

    The tool returns ``hostshape.retrieve.read(...)``: a budgeted page of a saved full result and the next cursor.
    """
    from hostshape.adapters._require import require

    require("claude", "claude_agent_sdk")
    from claude_agent_sdk import create_sdk_mcp_server, tool

    from hostshape.retrieve import RETRIEVAL_DESCRIPTION, RETRIEVAL_TOOL, read

    schema = {
        "type": "object",
        "properties": {
            "handle": {"type": "string", "description": "The handle from a [hostshape] envelope."},
            "query": {"type": "string", "description": "Optional JMESPath expression to narrow the result."},
            "cursor": {"type": "string", "description": "The cursor from the previous page, to continue."},
        },
        "required": ["handle"],
    }

    @tool(RETRIEVAL_TOOL, RETRIEVAL_DESCRIPTION, schema)
    async def hostshape_read(args: dict[str, Any]) -> dict[str, Any]:
        def page() -> str:
            try:
                return read(
                    str(args.get("handle") or ""),
                    query=str(args.get("query") or "") or None,
                    cursor=str(args.get("cursor") or "") or None,
                    policy=policy,
                )
            except Exception as exc:  # read() never raises; belt and braces for the host
                logger.exception("hostshape_read failed")
                return f"[hostshape] hostshape_read failed ({type(exc).__name__}); retry without a cursor."

        import anyio

        text = await anyio.to_thread.run_sync(page)
        return {"content": [{"type": "text", "text": text or "[hostshape] empty page"}]}

    return create_sdk_mcp_server(RETRIEVAL_SERVER, tools=[hostshape_read])


def _retrieval_tool_name() -> str:
    from hostshape.retrieve import RETRIEVAL_TOOL

    return f"mcp__{RETRIEVAL_SERVER}__{RETRIEVAL_TOOL}"


def hostshape_options(policy: Policy | None = None, *, matcher: str = "mcp__.*") -> dict[str, Any]:
    """``hooks``, ``mcp_servers`` and ``allowed_tools`` that install the adapter and the retrieval tool together.

    The policy's ``retrieval_tool`` is set to the name the model sees (``mcp__hostshape__hostshape_read``) so the
    envelope's hint names it. Pass as ``ClaudeAgentOptions(**hostshape_options(policy), ...)``, or let ``install``
    merge them into options you already have.
    """
    policy = (policy if policy is not None else Policy()).replace(retrieval_tool=_retrieval_tool_name())
    return {
        "hooks": hostshape_hooks(policy, matcher=matcher),
        "mcp_servers": {RETRIEVAL_SERVER: retrieval_server(policy)},
        "allowed_tools": [_retrieval_tool_name()],
    }


def install(
    options: ClaudeAgentOptions, policy: Policy | None = None, *, matcher: str = "mcp__.*"
) -> ClaudeAgentOptions:
    """A copy of ``options`` with hostshape's hooks, the retrieval server and permission to call it added.

    What ``options`` already has is kept (hostshape's matchers are appended). When ``options.mcp_servers`` is a
    config file path or JSON string, which cannot be merged with an in-process server, only the hooks are added and
    envelopes name the saved file instead of the tool.
    """
    policy = policy if policy is not None else Policy()
    hooks: dict[Any, list[Any]] = {event: list(ms) for event, ms in (options.hooks or {}).items()}
    if isinstance(options.mcp_servers, Mapping):
        pieces = hostshape_options(policy, matcher=matcher)
        servers: Any = {**options.mcp_servers, **pieces["mcp_servers"]}
        allowed = list(options.allowed_tools) + [t for t in pieces["allowed_tools"] if t not in options.allowed_tools]
        ours = pieces["hooks"]
    else:
        logger.warning("hostshape install: mcp_servers is not a dict, so the retrieval tool was not added")
        servers, allowed, ours = options.mcp_servers, list(options.allowed_tools), hostshape_hooks(policy, matcher=matcher)
    for event, matchers in ours.items():
        hooks.setdefault(event, []).extend(matchers)
    return dataclasses.replace(options, hooks=hooks, mcp_servers=servers, allowed_tools=allowed)

"""One Claude Code hook input in, the hook output out: framework-neutral, shared by the Claude Agent SDK hook and
``hostshape hook claude-code``.

The hook fires AFTER Claude Code's own limit (MAX_MCP_OUTPUT_TOKENS): a result under it is replaced by the shaped
text; an overflow notice naming the file Claude Code saved the result to is replaced by the shaped content of that
file, when it is this call's file (``claude_code.saved_for_call``) and safe to read (``saved_file``); a result the
host cut (ENABLE_MCP_LARGE_OUTPUT_FILES=false) is shaped from what the host kept, headed by a note that the rest
was never delivered and cannot be retrieved. What the host shows the model is measured as it shows it: the
FastMCP ``{"result": ...}`` string JSON-escaped, as it is (``HostForm.as_is``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hostshape.adapters.claude.saved_file import RESCUE_MAX_BYTES, read_saved_result
from hostshape.adapters.claude_code import (
    HOST_MAX_CHARS,
    HostCut,
    SavedNotice,
    post_tool_use_output,
    read_notice,
    saved_for_call,
    split_tool_name,
)
from hostshape.host import HostForm, fits_budget, glue_fault
from hostshape.policy import Policy

logger = logging.getLogger("hostshape.adapters.claude")

# Name of the in-process MCP server carrying the retrieval tool; Claude Code exposes it as mcp__hostshape__<tool>.
RETRIEVAL_SERVER = "hostshape"


def shape_hook_input(
    input_data: Mapping[str, Any], policy: Policy, *, max_file_bytes: int = RESCUE_MAX_BYTES
) -> dict[str, Any] | None:
    """The hook output for one Claude Code hook input, or None to leave the host's result as it is.

    - PostToolUse on an MCP tool: ``claude_code.post_tool_use_output(text)`` (``updatedToolOutput``, and
      ``updatedMCPToolOutput`` for CLIs that predate it) with ``text`` the shaped result (never empty, at most
      ``HOST_MAX_CHARS`` characters and within the tool's budget as the model reads it); see the module docstring
      for overflow notices and host cuts.
    - PostToolUseFailure: ``additionalContext`` only when the error is over the tool's budget (hooks cannot shorten
      failed results), else None.
    - Anything else (other events, non-MCP tools, the retrieval tool itself): None.

    Never raises: a fault is logged and answered by ``hostshape.host.glue_fault`` (None when the policy fails open).
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
        text = glue_fault(input_data.get("tool_response"), policy, exc, host=HostForm(max_chars=HOST_MAX_CHARS))
    if not text:
        return None
    return post_tool_use_output(text)


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
        maybe_server, tool = split_tool_name(qualified)
        if maybe_server is None:
            return None
        server = maybe_server
    from hostshape.wayback.retrieve import RETRIEVAL_TOOL

    if server == RETRIEVAL_SERVER and tool == RETRIEVAL_TOOL:
        return None  # its pages are budgeted already; reshaping them would not be idempotent
    return server, tool


def _shaped_text(
    input_data: Mapping[str, Any], policy: Policy, server: str, tool: str, max_file_bytes: int
) -> str | None:
    """The replacement text, or None to leave the host's result."""
    raw = input_data.get("tool_response")
    notice = read_notice(raw)
    if isinstance(notice, SavedNotice):
        return _rescue(notice, input_data, policy, server, tool, max_file_bytes)
    if isinstance(notice, HostCut):
        return _host_cut(notice, input_data, policy, server, tool)
    form = HostForm(as_is=raw if isinstance(raw, str) else None, max_chars=HOST_MAX_CHARS)
    return _shape(raw, input_data, policy, server, tool, form)


def _shape(
    content: Any, input_data: Mapping[str, Any], policy: Policy, server: str, tool: str, form: HostForm
) -> str | None:
    from hostshape import shape
    from hostshape.input.host_forms import tool_result

    args = input_data.get("tool_input")
    res = shape(
        tool_result(content),  # the tool_response as Claude Code hands it over (a str, or content blocks)
        policy=policy,
        tool=tool,
        server=server,
        host=form,
        args=dict(args) if isinstance(args, Mapping) else None,
    )
    return res.text if res.changed and res.text else None


def _rescue(
    notice: SavedNotice, input_data: Mapping[str, Any], policy: Policy, server: str, tool: str, max_file_bytes: int
) -> str | None:
    """Shape the full original Claude Code saved to a file; None (keep the notice) when it may not be read."""
    if not saved_for_call(Path(notice.path).name, server, tool):
        logger.warning("left Claude Code's overflow notice: %r is not this call's saved result", notice.path)
        return None
    transcript = input_data.get("transcript_path")
    content = read_saved_result(
        notice.path, transcript if isinstance(transcript, str) else "", max_bytes=max_file_bytes
    )
    if content is None:
        logger.info("left Claude Code's overflow notice: saved file %r is not readable here", notice.path)
        return None
    if not notice.matches(content):
        logger.warning("left Claude Code's overflow notice: %r does not hold the result it announced", notice.path)
        return None
    notes: tuple[str, ...] = ()
    if notice.partial:  # the host saved only a prefix: say so, like a host cut
        notes = (
            "[hostshape] Claude Code saved only the first part of this result (its persist byte limit); "
            "what follows is shaped from that part, the rest was not kept.",
            "[hostshape] Claude Code kept only the first part of this result.",
        )
    # Even a result that fits replaces the notice: the model gets the full original, unwrapped.
    form = HostForm(max_chars=HOST_MAX_CHARS, notes=notes, replace=True)
    return _shape(content, input_data, policy, server, tool, form)


def _host_cut(cut: HostCut, input_data: Mapping[str, Any], policy: Policy, server: str, tool: str) -> str | None:
    """Shape what Claude Code kept of a result it cut, and say that the rest cannot be retrieved."""
    kept = _unwrap_partial_result(cut.kept)
    records = _complete_records(kept)
    what = f"; the {len(records):,} records it delivered whole are below" if records else ""
    if cut.images:  # a result with images is cut even where large-output files are on (its images are dropped)
        why = f"over its {cut.limit:,}-token limit, leaving out its {cut.images:,} image(s)"
        ask = "ask the tool for a narrower or paginated result."
    else:
        why = f"over its {cut.limit:,}-token limit, with ENABLE_MCP_LARGE_OUTPUT_FILES=false"
        ask = (
            "ask the tool for a narrower or paginated result, or enable large-output files so hostshape can shape "
            "the full result."
        )
    notes = (
        f"[hostshape] Claude Code truncated this tool result to its first {len(kept):,} characters before hostshape "
        f"saw it ({why}){what}. The rest was never delivered and cannot be retrieved: {ask}",
        "[hostshape] Claude Code truncated this result before hostshape saw it; the rest cannot be retrieved.",
    )
    # What hostshape itself cuts from the kept part is still saved and retrievable; the note says the host's part is
    # not.
    form = HostForm(max_chars=HOST_MAX_CHARS, notes=notes, replace=True)
    return _shape(records if records else kept, input_data, policy, server, tool, form)


def _complete_records(text: str) -> list[Any] | None:
    """The whole elements at the start of a cut JSON array (``[{...},{...},{..``), or None if it is not one."""
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
        except (ValueError, RecursionError):
            break
        records.append(value)
    return records or None


def _unwrap_partial_result(prefix: str) -> str:
    """The readable text of a cut ``{"result":"..."}`` (FastMCP ``-> str``) prefix; other text unchanged."""
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


def _failure_output(input_data: Mapping[str, Any], policy: Policy) -> dict[str, Any] | None:
    """PostToolUseFailure: a hint only when the error is over budget, since a hook cannot replace it."""
    if input_data.get("is_interrupt"):
        return None
    error = input_data.get("error")
    names = _tool_names(input_data)
    if not isinstance(error, str) or names is None:
        return None
    server, tool = names
    if fits_budget(error, policy, tool=tool, server=server):
        return None
    budget = policy.budget_for(tool, server)
    hint = (
        f"[hostshape] The error above is over this tool's budget of {budget:,} tokens; Claude Code does not let hooks "
        "shorten failed results, so it is shown as the tool returned it."
    )
    return {"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": hint}}

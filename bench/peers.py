"""hostshape and the tools people use today, each called through its own shrinking code.

Every tool here is a ``Tool``: one size knob in the tool's own unit, and three steps:

- ``prepare(text, tool)`` builds the object the tool really operates on (a FastMCP ``ToolResult``, an OpenAI Agents
  conversation, a LangChain message list, or just the text) - not timed;
- ``shrink(prepared)`` is the tool's own code at one knob setting - the only part that is timed;
- ``read(shrunk)`` returns the exact text the model would be sent - not timed.

``user_knob(budget)`` is the setting a user would write for a token budget (4 bytes or characters per token, the
usual rule of thumb); ``run.py`` also searches for the largest knob whose output still fits (the setting most
favourable to the tool). Each peer imports its framework lazily, so a missing one is reported, not fatal.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.metadata
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from bench.spill import fixed_spill

CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Tool:
    """One shrinking tool, configured by a single size knob."""

    name: str
    distribution: str  # the PyPI distribution whose version is reported
    unit: str  # the knob's unit, for the report
    setup: str  # how the knob is applied, for the report
    modules: tuple[str, ...]  # what must import ("module" or "module:attribute") for the tool to run
    build: Callable[[int], Callable[[Any], Any]]  # knob -> shrink(prepared) -> shrunk
    prepare: Callable[[str, str], Any]  # (text, tool name) -> what the tool operates on
    read: Callable[[Any], str]
    user_knob: Callable[[int], int]
    searchable: bool = True  # False: the knob is already exact (hostshape's budget)

    def available(self) -> str | None:
        """None when the tool can run here, else why it cannot."""
        for spec in self.modules:
            module, _, attr = spec.partition(":")
            try:
                loaded = importlib.import_module(module)
                if attr:
                    getattr(loaded, attr)
            except Exception as exc:  # noqa: BLE001 - any import failure means "not available"
                return f"{spec}: {type(exc).__name__}: {exc}"
        return None

    def version(self) -> str:
        try:
            return importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"


def _text_only(text: str, tool: str) -> str:
    return text


def _text(x: Any) -> str:
    return x if isinstance(x, str) else str(x)


def _run(coro: Coroutine[Any, Any, Any]) -> Any:
    """Drive a coroutine that never really suspends without an event loop's overhead."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    return asyncio.run(coro)  # pragma: no cover - only if the middleware ever awaits real I/O


# --- hostshape -------------------------------------------------------------------------------------------------

#: The bench's own spill folder, so the user's cache is untouched; spilling stays on, as by default. Its path and
#: secret are fixed (bench/spill.py): the handles and the hint in each answer are the same on every run.
SPILL_DIR = fixed_spill("peers")


def _hostshape(budget: int) -> Callable[[Any], Any]:
    from hostshape import Policy, shape

    policy = Policy(budget=budget, spill_dir=SPILL_DIR)

    def run(call: tuple[str, str]) -> str:
        text, tool = call
        res = shape(text, policy=policy, tool=tool, server="corpus")
        if res.fault:  # shape() never raises; surface its own failure as this row's error
            raise RuntimeError(f"hostshape fault: {res.fault}")
        return res.text if res.changed else text  # changed=False: the host's own result goes through

    return run


HOSTSHAPE = Tool(
    name="hostshape",
    distribution="hostshape",
    unit="tokens",
    setup="shape(text, policy=Policy(budget=B)) - zero configuration, default spill on",
    modules=("hostshape:shape", "hostshape:Policy"),
    build=_hostshape,
    prepare=lambda text, tool: (text, tool),
    read=_text,
    user_knob=lambda budget: budget,
    searchable=False,
)


# --- fastmcp ResponseLimitingMiddleware ------------------------------------------------------------------------
# fastmcp 3.4.11 fastmcp/server/middleware/response_limiting.py:105-137: on_call_tool serialises the whole
# ToolResult; over max_size (bytes) it joins the text blocks, cuts the UTF-8 bytes at max_size - suffix - 50 and
# appends "\n\n[Response truncated due to size limit]". It needs the full `fastmcp` package (fastmcp-slim lacks
# the server extras it imports).


def _fastmcp_prepare(text: str, tool: str) -> Any:
    from fastmcp.tools.base import ToolResult
    from mcp.types import TextContent

    # What a FastMCP `-> str` tool returns: the text once as a block, once as structuredContent {"result": text}.
    return ToolResult(content=[TextContent(type="text", text=text)], structured_content={"result": text})


def _fastmcp(max_size: int) -> Callable[[Any], Any]:
    import mcp.types as mt
    from fastmcp.server.middleware.middleware import MiddlewareContext
    from fastmcp.server.middleware.response_limiting import ResponseLimitingMiddleware

    # Its one warning per truncation goes through fastmcp's rich console handler; silenced so that terminal I/O is
    # not counted against it (favourable to fastmcp: a server would pay for that line).
    logging.getLogger("fastmcp.server.middleware.response_limiting").setLevel(logging.ERROR)
    middleware = ResponseLimitingMiddleware(max_size=max_size)
    context = MiddlewareContext(message=mt.CallToolRequestParams(name="bench", arguments={}), method="tools/call")

    def run(result: Any) -> Any:
        async def call_next(_context: Any) -> Any:
            return result

        return _run(middleware.on_call_tool(context, call_next))

    return run


def _fastmcp_read(result: Any) -> str:
    from mcp.types import TextContent

    return "\n\n".join(b.text for b in result.content if isinstance(b, TextContent))


FASTMCP = Tool(
    name="fastmcp ResponseLimitingMiddleware",
    distribution="fastmcp",
    unit="bytes",
    setup="ResponseLimitingMiddleware(max_size=N).on_call_tool on a `-> str` ToolResult",
    modules=("fastmcp.server.middleware.response_limiting",),
    build=_fastmcp,
    prepare=_fastmcp_prepare,
    read=_fastmcp_read,
    user_knob=lambda budget: budget * CHARS_PER_TOKEN,
)


# --- shrinkfit -------------------------------------------------------------------------------------------------
# shrinkfit 0.6.0 shrinkfit/__init__.py:94-136: shrink(data, max_chars, **options) hands the text to the Rust core.
# Markdown and diffs are neither JSON nor YAML: it raises ShrinkError (reported as "error"; a user would pass the
# original through). `jev` (a hosted model) is never enabled here.


def _shrinkfit(**options: Any) -> Callable[[int], Callable[[Any], Any]]:
    def build(max_chars: int) -> Callable[[Any], Any]:
        from shrinkfit import shrink

        def run(text: str) -> str:
            return shrink(text, max_chars, **options)

        return run

    return build


SHRINKFIT = Tool(
    name="shrinkfit",
    distribution="shrinkfit",
    unit="chars",
    setup="shrink(text, max_chars=N) (defaults: indent=2, array_strategy='sample')",
    modules=("shrinkfit",),
    build=_shrinkfit(),
    prepare=_text_only,
    read=_text,
    user_knob=lambda budget: budget * CHARS_PER_TOKEN,
)

SHRINKFIT_CONDENSE = Tool(
    name="shrinkfit condense",
    distribution="shrinkfit",
    unit="chars",
    setup="shrink(text, max_chars=N, array_strategy='condense', indent=0) (its README's list-of-records example)",
    modules=("shrinkfit",),
    build=_shrinkfit(array_strategy="condense", indent=0),
    prepare=_text_only,
    read=_text,
    user_knob=lambda budget: budget * CHARS_PER_TOKEN,
)


# --- OpenAI Agents SDK ToolOutputTrimmer -----------------------------------------------------------------------
# openai-agents 0.24.0 agents/extensions/tool_output_trimmer.py:136-202, 243-270: a call_model_input_filter; it
# only trims outputs of turns older than the last `recent_turns` user messages (so the model sees the full output
# on the turn it arrives), replacing a string output over max_output_chars with a header plus its first
# preview_chars characters. We build the smallest history where the output is old: user, function_call,
# function_call_output, user - with recent_turns=1 (its minimum) - and set both knobs to N.


def _trimmer_prepare(text: str, tool: str) -> Any:
    from agents import Agent
    from agents.run_config import CallModelData, ModelInputData

    items = [
        {"role": "user", "content": "list them"},
        {"type": "function_call", "call_id": "call_1", "name": tool, "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": text},
        {"role": "user", "content": "and now?"},
    ]
    return CallModelData(
        model_data=ModelInputData(input=items, instructions=None), agent=Agent(name="bench"), context=None
    )


def _trimmer(n: int) -> Callable[[Any], Any]:
    from agents.extensions import ToolOutputTrimmer

    trimmer = ToolOutputTrimmer(recent_turns=1, max_output_chars=n, preview_chars=n)
    return trimmer


def _trimmer_read(model_data: Any) -> str:
    return next(i["output"] for i in model_data.input if i.get("type") == "function_call_output")


TOOL_OUTPUT_TRIMMER = Tool(
    name="OpenAI Agents ToolOutputTrimmer",
    distribution="openai-agents",
    unit="chars",
    setup="ToolOutputTrimmer(recent_turns=1, max_output_chars=N, preview_chars=N) on an older-turn output",
    modules=("agents.extensions",),
    build=_trimmer,
    prepare=_trimmer_prepare,
    read=_trimmer_read,
    user_knob=lambda budget: budget * CHARS_PER_TOKEN,
)


# --- LangChain ClearToolUsesEdit -------------------------------------------------------------------------------
# langchain 1.5.2 langchain/agents/middleware/context_editing.py:79-155: when the conversation's token count
# exceeds `trigger`, every tool message except the last `keep` becomes "[cleared]". ContextEditingMiddleware
# (same file :276-300) counts with count_tokens_approximately by default and deep-copies the messages first. With
# the default keep=3 a single result is never cleared, so keep=0; trigger is already in tokens.


def _clear_prepare(text: str, tool: str) -> Any:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    return [
        HumanMessage("list them"),
        AIMessage("", tool_calls=[{"name": tool, "args": {}, "id": "call_1", "type": "tool_call"}]),
        ToolMessage(text, tool_call_id="call_1", name=tool),
    ]


def _clear(trigger: int) -> Callable[[Any], Any]:
    from copy import deepcopy

    from langchain.agents.middleware import ClearToolUsesEdit
    from langchain_core.messages.utils import count_tokens_approximately

    edit = ClearToolUsesEdit(trigger=trigger, keep=0)

    def run(messages: list[Any]) -> list[Any]:
        edited = deepcopy(messages)  # as ContextEditingMiddleware.wrap_model_call does
        edit.apply(edited, count_tokens=count_tokens_approximately)
        return edited

    return run


def _clear_read(messages: list[Any]) -> str:
    return str(messages[-1].content)


CLEAR_TOOL_USES = Tool(
    name="LangChain ClearToolUsesEdit",
    distribution="langchain",
    unit="tokens (approx.)",
    setup="ClearToolUsesEdit(trigger=N, keep=0).apply (approximate counter, deep copy as the middleware does)",
    modules=("langchain.agents.middleware", "langchain_core.messages"),
    build=_clear,
    prepare=_clear_prepare,
    read=_clear_read,
    user_knob=lambda budget: budget,
)

PEERS: tuple[Tool, ...] = (FASTMCP, SHRINKFIT, SHRINKFIT_CONDENSE, TOOL_OUTPUT_TRIMMER, CLEAR_TOOL_USES)
TOOLS: tuple[Tool, ...] = (HOSTSHAPE, *PEERS)

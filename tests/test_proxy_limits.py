"""``hostshape proxy`` bounds the time and memory an upstream's output costs, and survives a bad log level
(issue 31). Timings live in ``bench/proxy_limits.py``; these tests assert on the algorithm (what is produced, and
peak memory through tracemalloc on moderate inputs) and on the real proxy process.
"""

from __future__ import annotations

import os
import re
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio
from hypothesis import given
from hypothesis import strategies as st
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_client import wire
from test_proxy import proxy_argv, text_of, write_policy

from hostshape.fit.text import clean
from hostshape.proxy.stdio import MalformedLine, messages

CHUNK = 65_536  # what a pipe read returns at most


async def _chunks(data: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(data), CHUNK):
        yield data[start : start + CHUNK]


def _read_all(data: bytes) -> tuple[list[Any], int]:
    """The messages read from ``data`` and the reader's peak memory (tracemalloc), ``data`` itself excluded."""
    found: list[Any] = []

    async def run() -> None:
        async for message in messages(_chunks(data)):
            found.append(message)

    tracemalloc.start()
    try:
        anyio.run(run)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return found, peak


def test_one_long_line_is_read_whole_in_memory_bounded_by_its_size() -> None:
    text = "x" * 4_000_000
    line = b'{"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "' + text.encode() + b'"}]}}'
    (message,), peak = _read_all(line + b"\n")
    assert wire(message.message)["id"] == 7
    assert wire(message.message)["result"]["content"][0]["text"] == text
    assert peak < 6 * len(line)  # the chunks, the joined line, its text and the parsed value: a few copies at most


def test_twenty_megabytes_of_blank_lines_cost_no_memory_and_yield_nothing() -> None:
    found, peak = _read_all(b"\n" * 20_000_000 + b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    assert len(found) == 1 and wire(found[0].message)["method"] == "notifications/initialized"
    assert peak < 4 * CHUNK * 10  # a chunk's pieces at a time (the SDK's reader raised an exception per line)


def test_lines_split_across_chunks_broken_utf8_and_garbage_are_read_as_they_are() -> None:
    good = b'{"jsonrpc": "2.0", "id": 1, "result": {"text": "caf\xc3\xa9 \xff"}}'
    data = b"\r\n  \n" + good + b"\n<html>502 Bad Gateway</html>\n" + good
    found, _ = _read_all(data + b"\n")
    assert [type(m).__name__ for m in found] == ["SessionMessage", "MalformedLine", "SessionMessage"]
    assert wire(found[0].message)["result"] == {"text": "café \ufffd"}
    assert isinstance(found[1], MalformedLine) and "502 Bad Gateway" in str(found[1])


def test_runs_of_blank_lines_cost_no_memory_per_line() -> None:
    tracemalloc.start()
    try:
        assert clean("a" + "\n" * 2_000_000 + "b") == "a\n\nb"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000  # the old pattern kept a backtracking frame per newline: 285 MB here


OLD_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")  # what clean() did before, slowly


@given(st.text(alphabet="\n \tab", max_size=40))
def test_blank_runs_collapse_exactly_as_before(text: str) -> None:
    assert clean(text) == OLD_BLANK_RUNS.sub("\n\n", text)


async def test_a_log_level_typo_leaves_the_proxy_working_with_a_note(tmp_path: Path) -> None:
    argv = proxy_argv(write_policy(tmp_path))
    log = tmp_path / "stderr.log"
    env = {**os.environ, "HOSTSHAPE_LOG": "verbse"}
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    with log.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("counter", {})
    assert text_of(result).startswith("call 1 of")
    assert "HOSTSHAPE_LOG: unknown log level 'verbse'" in log.read_text()


def test_a_line_past_the_limit_is_dropped_as_it_arrives_and_the_next_line_is_read() -> None:
    from hostshape.proxy import stdio

    good = b'{"jsonrpc": "2.0", "method": "notifications/initialized"}'
    data = b"x" * 3_000_000 + b"\n" + good + b"\n"
    found: list[Any] = []

    async def run() -> None:
        async for message in stdio.messages(_chunks(data), max_line=1_000_000):
            found.append(message)

    tracemalloc.start()
    try:
        anyio.run(run)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(found[0], MalformedLine) and "more than 1,000,000 bytes" in str(found[0])
    assert wire(found[1].message)["method"] == "notifications/initialized" and len(found) == 2
    assert peak < 1_000_000 + 4 * CHUNK  # never more than the limit held

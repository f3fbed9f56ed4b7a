"""``hostshape proxy`` keeps its clients apart and its upstream's protocol straight (issue 31).

The real proxy (its own process) serves streamable HTTP on 127.0.0.1 or stdio; the clients are the real ``mcp`` SDK
client; the upstream is ``tests/proxy_upstream.py``. Every assertion is about what a client received.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio
from helpers import is_shaped
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import ClientSession, types
from mcp_client import McpError, http_streams, next_cursor, notification
from test_proxy import BUDGET, assert_within_budget, http_proxy, proxy_argv, stdio_session, text_of, write_policy


@asynccontextmanager
async def http_client(url: str, name: str, seen: list[str]) -> AsyncIterator[ClientSession]:
    """A client over streamable HTTP whose model answers every sampling request with ``answer from <name>`` and
    records the request's text in ``seen``."""

    async def sampling(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        seen.extend(m.content.text for m in params.messages if isinstance(m.content, types.TextContent))
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=f"answer from {name}"), model="scripted"
        )

    async with (
        http_streams(url) as (read, write),
        ClientSession(read, write, sampling_callback=sampling) as session,
    ):
        await session.initialize()
        yield session


async def test_a_sampling_request_reaches_only_the_client_whose_call_caused_it(tmp_path: Path) -> None:
    seen_a: list[str] = []
    seen_b: list[str] = []
    async with (
        http_proxy(proxy_argv(write_policy(tmp_path))) as url,
        http_client(url, "A", seen_a) as a,
        http_client(url, "B", seen_b) as b,
    ):
        results: dict[str, str] = {}

        async def call_a() -> None:
            result = await a.call_tool("sample", {"who": "client A", "secret": "SECRET-OF-A", "wait": 1.0})
            results["a"] = text_of(result)

        async with anyio.create_task_group() as tg:
            tg.start_soon(call_a)
            await anyio.sleep(0.3)  # B speaks while A's call waits upstream (the proxy once asked whoever spoke last)
            results["b"] = text_of(await b.call_tool("counter", {}))
        results["b2"] = text_of(await b.call_tool("sample", {"who": "client B", "secret": "SECRET-OF-B"}))
    assert results["a"] == "answer from A"
    assert results["b2"] == "answer from B"
    assert seen_a == ["Summarise the private notes of client A: SECRET-OF-A"]
    assert seen_b == ["Summarise the private notes of client B: SECRET-OF-B"]
    assert not any("SECRET-OF-A" in text for text in seen_b)


async def test_each_client_session_has_its_own_upstream_session(tmp_path: Path) -> None:
    async with (
        http_proxy(proxy_argv(write_policy(tmp_path))) as url,
        http_client(url, "A", []) as a,
        http_client(url, "B", []) as b,
    ):
        first_a = text_of(await a.call_tool("counter", {}))
        second_a = text_of(await a.call_tool("counter", {}))
        first_b = text_of(await b.call_tool("counter", {}))
        page_a = await a.list_tools()
        page_b = await b.list_tools(params=types.PaginatedRequestParams(cursor=next_cursor(page_a)))
    assert first_a.startswith("call 1 of") and second_a.startswith("call 2 of")
    assert first_b.startswith("call 1 of") and first_b.split()[-1] != first_a.split()[-1]  # another process
    assert next_cursor(page_a) and [t.name for t in page_b.tools] != [t.name for t in page_a.tools]


async def test_a_client_of_the_sessionless_2026_era_gets_an_upstream_session_per_request(tmp_path: Path) -> None:
    """mcp 2's 2026-07-28 era has no sessions (each request carries its own envelope): nothing can tie one request
    to another, so each gets an upstream session of its own, and results are shaped as in any era."""
    if not hasattr(ClientSession, "discover"):
        pytest.skip("the 2026-07-28 protocol era exists from mcp 2 on")
    async with (
        http_proxy(proxy_argv(write_policy(tmp_path))) as url,
        http_streams(url) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.discover()  # instead of initialize: the modern era
        first = text_of(await session.call_tool("counter", {}))
        second = text_of(await session.call_tool("counter", {}))
        result = await session.call_tool("list_pull_requests", {})
    assert first.startswith("call 1 of") and second.startswith("call 1 of")
    assert first.split()[-1] != second.split()[-1]  # two upstream processes
    assert is_shaped(assert_within_budget(result, BUDGET))


async def test_a_late_answer_to_a_cancelled_call_fails_no_other_call(tmp_path: Path) -> None:
    async with stdio_session(proxy_argv(write_policy(tmp_path), "--timeout", "2")) as session:
        results: list[str] = []

        async def given_up() -> None:  # the proxy gives up at 2 s and cancels it: the upstream answers it late
            with pytest.raises(McpError, match="did not answer within 2 s"):
                await session.call_tool("progress", {"steps": 1, "delay": 10})

        async def waiting() -> None:  # in flight when that late answer arrives
            await anyio.sleep(1.5)
            results.append(text_of(await session.call_tool("progress", {"steps": 1, "delay": 1.0})))

        async with anyio.create_task_group() as tg:
            tg.start_soon(given_up)
            tg.start_soon(waiting)
        assert results == ["finished"]
        assert text_of(await session.call_tool("counter", {})).startswith("call 1 of")  # not restarted


async def test_an_upstream_error_with_code_32000_is_passed_through_without_a_restart(tmp_path: Path) -> None:
    async with stdio_session(proxy_argv(write_policy(tmp_path))) as session:
        before = text_of(await session.call_tool("counter", {}))
        for _ in range(3):
            with pytest.raises(McpError) as caught:
                await session.call_tool("rpc_error", {"code": -32000, "size": 40})
            assert caught.value.error.code == -32000 and "upstream failure" in caught.value.error.message
        after = text_of(await session.call_tool("counter", {}))
    assert before.startswith("call 1 of") and after.startswith("call 2 of")
    assert after.split()[-1] == before.split()[-1]  # the same upstream process


# --- property: any interleaving of several clients' calls, cancellations, errors and notifications ---------------

OPS = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=2),  # which client
        st.sampled_from(["sample", "cancel", "error", "progress"]),
        st.sampled_from([-32000, -32603, 7]),  # the error code, for "error"
        st.floats(min_value=0.0, max_value=0.3),  # when it starts
    ),
    min_size=1,
    max_size=8,
)


@pytest.fixture(scope="module")
def shared_proxy(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One proxy over HTTP for every example (each example opens its own client sessions)."""
    import socket
    import subprocess
    import time

    from test_proxy import free_port

    port = free_port()
    argv = proxy_argv(write_policy(tmp_path_factory.mktemp("proxy")))
    process = subprocess.Popen([*argv[:4], "--http", f"127.0.0.1:{port}", *argv[4:]], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}/mcp"
    process.terminate()
    process.wait(timeout=20)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_every_client_gets_only_its_own_requests_results_and_notifications(shared_proxy: str, ops: list[Any]) -> None:
    anyio.run(_interleave, shared_proxy, ops)


async def _interleave(url: str, ops: list[Any]) -> None:
    names = ["A", "B", "C"]
    seen: dict[str, list[str]] = {n: [] for n in names}
    logs: dict[str, int] = dict.fromkeys(names, 0)
    progressed: dict[str, int] = dict.fromkeys(names, 0)
    answers: list[tuple[str, str, str]] = []  # (client, what it asked, what it got)
    async with AsyncExitStack() as stack:
        sessions: dict[str, ClientSession] = {}
        for name in names:

            async def sampling(context: Any, params: Any, name: str = name) -> types.CreateMessageResult:
                seen[name].extend(m.content.text for m in params.messages if isinstance(m.content, types.TextContent))
                reply = types.TextContent(type="text", text=f"answer from {name}")
                return types.CreateMessageResult(role="assistant", content=reply, model="scripted")

            async def on_message(message: Any, name: str = name) -> None:
                if isinstance(notification(message), types.LoggingMessageNotification):
                    logs[name] += 1

            read, write = await stack.enter_async_context(http_streams(url))
            session = await stack.enter_async_context(
                ClientSession(read, write, sampling_callback=sampling, message_handler=on_message)
            )
            await session.initialize()
            sessions[name] = session

        async def run(index: int, op: tuple[int, str, int, float]) -> None:
            who, kind, code, delay = names[op[0]], op[1], op[2], op[3]
            session = sessions[who]
            await anyio.sleep(delay)
            if kind == "sample":
                secret = f"SECRET-{who}-{index}"
                result = await session.call_tool("sample", {"who": who, "secret": secret, "wait": 0.1})
                answers.append((who, secret, text_of(result)))
            elif kind == "cancel":
                with anyio.move_on_after(0.05):
                    await session.call_tool("progress", {"steps": 2, "delay": 0.5})
            elif kind == "error":
                with pytest.raises(McpError) as caught:
                    await session.call_tool("rpc_error", {"code": code, "size": 10})
                assert caught.value.error.code == code
            else:

                async def on_progress(value: float, total: float | None, message: str | None) -> None:
                    progressed[who] += 1

                result = await session.call_tool("progress", {"steps": 2, "delay": 0.05}, progress_callback=on_progress)
                assert text_of(result) == "finished"

        async with anyio.create_task_group() as tg:
            for index, op in enumerate(ops):
                tg.start_soon(run, index, op)
        for session in sessions.values():  # every client's upstream still answers
            assert text_of(await session.call_tool("counter", {})).startswith("call ")
    for who, _, got in answers:
        assert got == f"answer from {who}"
    for name in names:
        asked = {f"Summarise the private notes of {w}: {s}" for w, s, _ in answers if w == name}
        assert set(seen[name]) == asked  # a client sees its own sampling requests only
        finished = sum(1 for o in ops if names[o[0]] == name and o[1] == "progress")
        assert progressed[name] == 2 * finished
        assert logs[name] >= finished  # its own log messages (a cancelled call may have logged too)
        assert logs[name] <= sum(1 for o in ops if names[o[0]] == name and o[1] in ("progress", "cancel"))

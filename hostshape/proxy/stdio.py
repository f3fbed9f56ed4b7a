"""The proxy's stdio transport to an upstream process: the ``mcp`` SDK's ``stdio_client`` contract (a pair of
memory streams of ``SessionMessage | Exception``) with a reader linear in the size of a line.

The SDK's reader joins the pending text to every chunk it reads (``lines = (buffer + chunk).split("\\n")``,
mcp/client/stdio/__init__.py:150 in 1.30), so one 64 MB line costs about 1,000 copies of up to 64 MB; and it turns
every blank line into an exception, logged with its traceback. This one keeps a line's chunks in a list and joins
them once, skips blank lines, drops a line past ``MAX_LINE`` bytes as it arrives (a ``MalformedLine``), and decodes
broken UTF-8 with replacement characters (the JSON still parses; the shaped result says what it holds) instead of
ending the connection.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager, suppress
from typing import Any

MAX_LINE = 256 * 1024 * 1024  # bytes of one JSON-RPC line; shaping a line costs several times its size
TERMINATION_TIMEOUT = 2.0  # seconds the upstream gets to exit after its stdin closes, then after SIGTERM


class MalformedLine(ValueError):
    """A line of the upstream's stdout that is not a JSON-RPC message."""


@asynccontextmanager
async def stdio_process(
    command: str, args: list[str], *, env: Mapping[str, str], cwd: str | None, errlog: Any
) -> AsyncIterator[tuple[Any, Any]]:
    """Start ``command`` and yield the (read, write) streams of its JSON-RPC over stdio; on exit close its stdin,
    then SIGTERM and SIGKILL its process group if it does not exit (the MCP stdio shutdown sequence)."""
    import anyio
    from mcp.shared.message import SessionMessage

    if sys.platform == "win32":  # pragma: no cover - the SDK's client knows Windows job objects
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(command=command, args=args, env=dict(env), cwd=cwd)
        async with stdio_client(params, errlog=errlog) as streams:
            yield streams
        return

    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        process = await anyio.open_process(
            [command, *args], env=dict(env), stderr=errlog, cwd=cwd, start_new_session=True
        )
    except OSError:
        for stream in (read_stream, read_writer, write_stream, write_reader):
            await stream.aclose()
        raise

    async def read_stdout() -> None:
        assert process.stdout is not None
        try:
            async with read_writer:
                async for message in messages(process.stdout):
                    await read_writer.send(message)
        except anyio.ClosedResourceError:
            pass
        finally:  # its stdout is closed: the session is over, and a request sent now fails at once
            await write_reader.aclose()

    async def write_stdin() -> None:
        assert process.stdin is not None
        try:
            async with write_reader:
                async for outgoing in write_reader:
                    data = outgoing.message.model_dump_json(by_alias=True, exclude_none=True)
                    await process.stdin.send(data.encode("utf-8") + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass

    async with anyio.create_task_group() as tg, process:
        tg.start_soon(read_stdout)
        tg.start_soon(write_stdin)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await _stop(process)
            tg.cancel_scope.cancel()
            for stream in (read_stream, read_writer, write_stream, write_reader):
                await stream.aclose()


async def messages(stdout: Any, max_line: int = MAX_LINE) -> AsyncIterator[Any]:
    """The ``SessionMessage`` of each non-blank line of ``stdout`` (a byte stream), or a ``MalformedLine`` (also for
    a line longer than ``max_line`` bytes, whose bytes are dropped as they come rather than held)."""
    from mcp.shared.message import SessionMessage

    pending: list[bytes] = []
    held = 0
    overlong = False
    async for chunk in stdout:
        *complete, rest = chunk.split(b"\n")
        if complete:
            first = complete[0]
            if overlong or held + len(first) > max_line:
                yield MalformedLine(f"a line of more than {max_line:,} bytes (dropped)")
                complete = complete[1:]
            elif pending:
                complete[0] = b"".join([*pending, first])
            pending, held, overlong = [], 0, False
            for line in filter(bytes.strip, complete):  # blank lines skipped at C speed
                if len(line) > max_line:
                    yield MalformedLine(f"a line of more than {max_line:,} bytes (dropped)")
                    continue
                yield _parsed(line, SessionMessage)
        if rest and not overlong:
            pending.append(rest)
            held += len(rest)
            if held > max_line:
                pending, held, overlong = [], 0, True


def _parsed(line: bytes, wrap: Any) -> Any:
    from hostshape.proxy import sdk

    text = line.decode("utf-8", "replace")
    try:
        return wrap(sdk.json_rpc_message(text))
    except ValueError as exc:
        return MalformedLine(f"{text[:200]!r}: {str(exc).splitlines()[0][:200]}")


async def _stop(process: Any) -> None:
    import anyio

    if process.stdin is not None:
        with suppress(Exception):  # already closed
            await process.stdin.aclose()
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            try:
                os.killpg(process.pid, sig)
            except (ProcessLookupError, PermissionError):
                return
        with anyio.move_on_after(TERMINATION_TIMEOUT):
            await process.wait()
            return

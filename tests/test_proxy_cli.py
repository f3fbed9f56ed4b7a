"""``hostshape proxy`` as a newcomer starts it (issue 28): the policy found by the rule every command follows, the
address it serves HTTP at, no traceback when a client goes away, clear refusals of bad options.

The real proxy process with the real ``mcp`` client; tokens counted with o200k on what the client received.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from test_proxy import UPSTREAM, text_of

from hostshape.tokens import count_tokens

BUDGET = 1000


def policy_text(tmp_path: Path) -> str:
    return f'budget = {BUDGET}\n[spill]\ndir = "{(tmp_path / "spill").as_posix()}"\n'


@pytest.mark.parametrize("where", ["HOSTSHAPE_POLICY", "./.hostshape.toml", "XDG_CONFIG_HOME"])
async def test_the_proxy_finds_the_policy_by_the_rule_every_command_follows(tmp_path: Path, where: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("HOSTSHAPE_POLICY", "XDG_CONFIG_HOME")}
    env["HOME"] = str(tmp_path / "home")
    if where == "HOSTSHAPE_POLICY":
        (tmp_path / "chosen.toml").write_text(policy_text(tmp_path))
        env["HOSTSHAPE_POLICY"] = str(tmp_path / "chosen.toml")
    elif where == "./.hostshape.toml":
        (project / ".hostshape.toml").write_text(policy_text(tmp_path))
    else:
        (tmp_path / "xdg" / "hostshape").mkdir(parents=True)
        (tmp_path / "xdg" / "hostshape" / "policy.toml").write_text(policy_text(tmp_path))
        env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent.parent), env.get("PYTHONPATH", "")])
    argv = [sys.executable, "-m", "hostshape.cli", "proxy", "--", *UPSTREAM]
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=str(project))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("fetch_plain", {"name": "gh_pulls_list.json"})
    assert count_tokens(text_of(result)) <= BUDGET


def test_a_bad_policy_found_by_the_rule_is_named_in_the_error(tmp_path: Path) -> None:
    (tmp_path / ".hostshape.toml").write_text("budget = 'lots'\n")
    argv = [sys.executable, "-m", "hostshape.cli", "proxy", "--", *UPSTREAM]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent), "HOME": str(tmp_path)}
    env.pop("HOSTSHAPE_POLICY", None)
    done = subprocess.run(argv, cwd=tmp_path, env=env, input=b"", capture_output=True, timeout=60, check=False)
    assert done.returncode == 2
    assert ".hostshape.toml" in done.stderr.decode()


@pytest.mark.parametrize("budget", ["0", "-5", "ten"])
def test_a_budget_below_one_token_is_refused(tmp_path: Path, budget: str) -> None:
    argv = [sys.executable, "-m", "hostshape.cli", "proxy", "--budget", budget, "--", *UPSTREAM]
    done = subprocess.run(argv, input=b"", capture_output=True, timeout=60, check=False)
    assert done.returncode == 2 and "at least 1" in done.stderr.decode()


async def test_http_prints_its_address_and_a_client_going_away_leaves_no_traceback(tmp_path: Path) -> None:
    from mcp_client import http_streams

    (tmp_path / "policy.toml").write_text(policy_text(tmp_path))
    argv = [sys.executable, "-m", "hostshape.cli", "proxy", "--policy", str(tmp_path / "policy.toml")]
    errlog = tmp_path / "stderr.log"
    with errlog.open("w") as err:
        process = subprocess.Popen([*argv, "--http", "127.0.0.1:0", "--", *UPSTREAM], stderr=err)
    try:
        url = ""
        deadline = time.monotonic() + 60
        while not url and time.monotonic() < deadline:
            assert process.poll() is None, errlog.read_text()
            for line in errlog.read_text().splitlines():
                if line.startswith("hostshape proxy: serving MCP at "):
                    url = line.rsplit(" ", 1)[-1]
            await anyio.sleep(0.1)
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        with anyio.move_on_after(1.5):  # the client goes away in the middle of a call
            async with http_streams(url) as (read, write), ClientSession(read, write) as gone:
                await gone.initialize()
                await gone.call_tool("progress", {"steps": 2, "delay": 1.5})
        async with http_streams(url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await anyio.sleep(2.5)  # the first call ends upstream, its answer has nowhere to go
            counted = text_of(await session.call_tool("counter", {}))
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    assert counted.startswith("call 1 of")
    assert "Traceback" not in errlog.read_text(), errlog.read_text()
    assert process.returncode in (0, -signal.SIGINT)

"""``hostshape hook`` never fails open (issue 31): a log-level typo, an input over 64 MB, a stdin that never closes, a
structured copy that is not a copy, or a larger budget never lets an unshaped MCP result reach the model.

Through the real ``python -m hostshape.cli.hook`` process as Claude Code and Codex run it; the Codex cases also through
the real Codex CLI with a loopback Responses API (skipped when it is not installed, as in ``test_hook_command.py``).
"""

from __future__ import annotations

import json
import logging
import os
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
import test_hook_command as commands
from helpers import is_shaped
from test_hook_command import codex_input, hook_env, post_tool_use, write_policy

import hostshape.cli.hook as hook
from hostshape import Policy, shape, telemetry
from hostshape.tokens import count_tokens

HERE = Path(__file__).parent
RECORDS = [
    {"id": i, "title": f"issue {i} about the parser", "state": "open", "body": "steps " * 12} for i in range(300)
]
BIG = json.dumps(RECORDS)  # 19,000+ tokens


def run(host: str, stdin: bytes, policy: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    full = {**os.environ, **hook_env(**env)}
    return subprocess.run(
        [sys.executable, "-m", "hostshape.cli.hook", host, "--policy", str(policy)],
        input=stdin,
        capture_output=True,
        env=full,
        timeout=120,
    )


def model_text(host: str, proc: subprocess.CompletedProcess[bytes]) -> str:
    """What the model reads in place of the result, from the hook's output."""
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout, f"no hook output: the result would reach the model unshaped. stderr: {proc.stderr[-500:]!r}"
    out = json.loads(proc.stdout)
    return str(out["reason"] if host == "codex" else out["hookSpecificOutput"]["updatedMCPToolOutput"])


def hook_input(host: str, response: Any) -> bytes:
    return (codex_input(response) if host == "codex" else post_tool_use(response)).encode()


HOSTS = ["claude-code", "codex"]


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize("level", ["WARNNG", "verbose", "info "])
def test_a_log_level_typo_never_stops_the_shaping(tmp_path: Path, host: str, level: str) -> None:
    policy = write_policy(tmp_path / "p.toml", tmp_path / "spill", budget=1000)
    proc = run(host, hook_input(host, {"content": [{"type": "text", "text": BIG}]}), policy, HOSTSHAPE_LOG_LEVEL=level)
    text = model_text(host, proc)
    assert is_shaped(text) and count_tokens(text) <= 1000
    if level.strip().upper() not in ("INFO",):
        assert b"unknown log level" in proc.stderr


@pytest.mark.parametrize("host", HOSTS)
def test_hook_input_over_64_mb_is_withheld_within_the_budget(tmp_path: Path, host: str) -> None:
    policy = write_policy(tmp_path / "p.toml", tmp_path / "spill", budget=1000)
    text = "x" * (hook.MAX_INPUT_BYTES + 1024)
    proc = run(host, hook_input(host, {"content": [{"type": "text", "text": text}]}), policy)
    answer = model_text(host, proc)
    assert "withheld" in answer and "64 MB" in answer
    assert count_tokens(answer) <= 1000


def test_a_hook_whose_stdin_never_closes_answers_once_the_input_is_whole(tmp_path: Path) -> None:
    policy = write_policy(tmp_path / "p.toml", tmp_path / "spill", budget=1000)
    env = {**os.environ, **hook_env()}
    proc = subprocess.Popen(
        [sys.executable, "-m", "hostshape.cli.hook", "claude-code", "--policy", str(policy)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(post_tool_use({"content": [{"type": "text", "text": BIG}]}).encode())
        proc.stdin.flush()  # and never closed
        out = _read_until_exit(proc)
    finally:
        proc.kill()
        proc.wait()
    text = json.loads(out)["hookSpecificOutput"]["updatedMCPToolOutput"]
    assert is_shaped(text) and count_tokens(text) <= 1000


def _read_until_exit(proc: subprocess.Popen[bytes]) -> bytes:
    """The process's stdout once it exits by itself (stdin still open), within 30 s."""
    assert proc.stdout is not None
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(proc.stdout.read() if proc.stdout else b""), daemon=True)
    reader.start()
    proc.wait(timeout=30)
    reader.join(timeout=5)
    return b"".join(got)


def test_a_hook_whose_stdin_stays_open_with_half_an_input_stops_after_a_bounded_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(hook, "READ_TIMEOUT_S", 1.0)
    policy = write_policy(tmp_path / "p.toml", tmp_path / "spill", budget=1000)
    read_end, write_end = os.pipe()
    os.write(write_end, post_tool_use({"content": [{"type": "text", "text": BIG}]}).encode()[:5000])
    try:
        with os.fdopen(read_end, "rb") as stdin:
            import io

            out = io.StringIO()
            assert hook.main(["claude-code", "--policy", str(policy)], stdin=stdin, stdout=out) == 0
    finally:
        os.close(write_end)
    text = json.loads(out.getvalue())["hookSpecificOutput"]["updatedMCPToolOutput"]
    assert "withheld" in text and "incomplete" in text and count_tokens(text) <= 1000


# -- Codex ----------------------------------------------------------------------------------------------------------
SUMMARY = {
    "content": [{"type": "text", "text": "Found 300 issues."}],
    "structuredContent": {"issues": RECORDS},
    "isError": False,
}


def test_the_codex_hook_shapes_a_structured_content_that_is_not_a_copy_of_the_text(tmp_path: Path) -> None:
    policy = write_policy(tmp_path / "p.toml", tmp_path / "spill", budget=1000)
    text = model_text("codex", run("codex", codex_input(SUMMARY).encode(), policy))
    assert is_shaped(text) and count_tokens(text) <= 1000
    envelope = json.loads(text)["_hostshape"]
    assert envelope["total"] == 300 and envelope["truncated"] is True and envelope["handle"]


def mixed_lines() -> str:
    rng = random.Random(1)
    words = ["привет", "мир", "данные", "запись", "ошибка", "日本", "語", "😀", "ß", "é"]
    return "\n".join(" ".join(rng.choice(words) for _ in range(12)) for _ in range(5000))


@pytest.mark.parametrize("budget", [10_000, 20_000, 50_000])
def test_the_codex_hook_never_withholds_at_a_larger_budget_what_it_shapes_at_a_smaller(
    tmp_path: Path, budget: int
) -> None:
    policy = write_policy(tmp_path / "p.toml", tmp_path / "spill", budget=budget)
    response = {"content": [{"type": "text", "text": mixed_lines()}], "isError": False}
    text = model_text("codex", run("codex", codex_input(response).encode(), policy))
    assert "withheld" not in text and is_shaped(text)
    assert len(text.encode()) <= 10_000 and count_tokens(text) <= budget


CODEX_UPSTREAM = HERE / "codex_upstream.py"


@pytest.mark.host
def test_real_codex_model_reads_a_structured_content_shaped_to_the_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(commands, "mcp_server_command", lambda: [sys.executable, str(CODEX_UPSTREAM)])
    policy = write_policy(tmp_path / "policy.toml", tmp_path / "spill", budget=1000)
    received = commands.run_codex("summary", tmp_path, ("--policy", str(policy)))
    assert is_shaped(received), received[:300]
    assert count_tokens(received) <= 1000
    assert json.loads(received)["_hostshape"]["total"] == 300


# -- telemetry ------------------------------------------------------------------------------------------------------
def test_telemetry_with_info_logging_never_tokenizes_a_whole_10_mb_input(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, policy: Policy
) -> None:
    from hostshape import tokens

    counted: list[int] = []
    original = tokens.Counter.count

    def count(self: tokens.Counter, text: str) -> int:
        counted.append(len(text))
        return original(self, text)

    monkeypatch.setattr(tokens.Counter, "count", count)
    text = "".join(f"line {i}: the quick brown fox jumps over the lazy dog\n" for i in range(200_000))  # 10 MB
    with caplog.at_level(logging.INFO, logger="hostshape.telemetry"):
        res = shape(text, policy=policy, tool="t")
    assert res.truncated and count_tokens(res.text) <= policy.budget
    assert max(counted) <= 1_000_000, "a whole 10 MB input was tokenized"
    record = next(r for r in caplog.records if r.name == "hostshape.telemetry")
    assert "'tokens_before_estimated': True" in record.getMessage()
    estimate = int(record.getMessage().split("'tokens_before': ")[1].split(",")[0])
    assert 0.9 < estimate / count_tokens(text) < 1.1
    assert len(text) > telemetry.EXACT_CHARS

"""``hostshape hook claude-code``: the command hook, with the real bundled Claude Code CLI, offline.

Host tests configure the hook as a COMMAND in a settings file (not an SDK callback), run the bundled CLI through
``claude_agent_sdk.query`` against the scripted loopback Messages API, and assert on the tool_result the loopback
model actually received, counted with o200k. Unit tests run ``python -m hostshape.cli.hook`` as a subprocess, as Claude
Code does, for the promises about stdin, stdout and the exit status.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import PR_NUMBERS, is_shaped

import hostshape.cli.hook as hook
from hostshape.examples import payload_text
from hostshape.output.columns import as_records
from hostshape.testing import mcp_server_command
from hostshape.tokens import count_tokens

REPO_ROOT = Path(hook.__file__).resolve().parents[1]
HOST_NOTICE = "exceeds maximum allowed tokens"
BUDGET = 4000


def hook_env(**extra: str) -> dict[str, str]:
    """The environment a hook command runs in: hostshape importable as the package in this checkout."""
    path = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path, **extra}


def hook_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "hostshape.cli.hook", "claude-code", *args]


def run_hook(stdin: bytes | str, *args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    full_env = {**os.environ, **hook_env(**env)}
    return subprocess.run(hook_command(*args), input=data, capture_output=True, cwd=cwd, env=full_env, timeout=60)


def write_policy(path: Path, spill_dir: Path, budget: int = BUDGET) -> Path:
    path.write_text(f'budget = {budget}\n[spill]\ndir = "{spill_dir.as_posix()}"\n', encoding="utf-8")
    return path


def post_tool_use(tool_response: Any, tool: str = "mcp__corpus__list_issues_small", **extra: Any) -> str:
    return json.dumps(
        {
            "session_id": "s",
            "transcript_path": "/nonexistent/s.jsonl",
            "cwd": "/tmp",
            "hook_event_name": "PostToolUse",
            "tool_name": tool,
            "tool_input": {},
            "tool_response": tool_response,
            "tool_use_id": "toolu_1",
            **extra,
        }
    )


# -- stdin, stdout, exit status -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "stdin",
    [
        b"",
        b"not json",
        b'{"hook_event_name": "PostToolUse", "tool_name": "mcp__corpus__x", "tool_respo',
        b"[1, 2, 3]",
        b"\xff\xfe\x00garbage",
        b'{"hook_event_name": "PostToolUse"}',
        b'{"hook_event_name": "PreToolUse", "tool_name": "mcp__corpus__x", "tool_input": {}}',
        post_tool_use("x" * 100_000, tool="Bash").encode(),
    ],
    ids=["empty", "not-json", "cut-json", "array", "not-utf8", "no-tool", "other-event", "not-mcp"],
)
def test_malformed_or_foreign_input_gets_no_output_and_exit_0(stdin: bytes, tmp_path: Path) -> None:
    proc = run_hook(stdin, cwd=tmp_path, XDG_CONFIG_HOME=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b""


def test_result_within_budget_exits_without_loading_the_tokenizer(tmp_path: Path) -> None:
    probe = (
        "import io, sys\n"
        "from hostshape.cli.hook import main\n"
        f"code = main(['claude-code'], stdin=io.BytesIO({post_tool_use('small result ' * 50)!r}.encode()),"
        " stdout=sys.stdout)\n"
        "import hostshape.tokens as t\n"
        "print(code, 'hostshape.adapters.claude' in sys.modules, t._load.cache_info().currsize, file=sys.stderr)\n"
    )
    env = {**os.environ, **hook_env(XDG_CONFIG_HOME=str(tmp_path))}
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, cwd=tmp_path, env=env, timeout=60)
    assert proc.stdout == b""
    assert proc.stderr.decode().split()[-3:] == ["0", "False", "0"], proc.stderr


def test_overflow_notice_is_never_skipped_however_small() -> None:
    from hostshape.policy import Policy

    notice = "Error: result (209,154 characters) exceeds maximum allowed tokens. Output has been saved to /x.txt."
    assert not hook._obviously_fits(notice, "mcp__corpus__x", Policy())
    assert hook._obviously_fits("a short answer", "mcp__corpus__x", Policy())
    assert not hook._obviously_fits([{"type": "image", "data": "AAAA", "mimeType": "image/png"}], "mcp__c__x", Policy())


def test_a_configured_projection_is_never_skipped() -> None:
    from hostshape.policy import Policy, Rule

    policy = Policy(rules=(Rule(tool="x", fields=("id",)),))
    assert not hook._obviously_fits('[{"id": 1, "body": "b"}]', "mcp__corpus__x", policy)


def test_result_over_budget_is_shaped_and_one_that_fits_is_left_alone(tmp_path: Path) -> None:
    # octokit_issues_page1.json: 9,101 bytes, 2,741 tokens. Over 4,000 bytes, so the tokenizer decides: it fits
    # 4,000 tokens (no output), not 1,000 (shaped output within 1,000 tokens).
    stdin = post_tool_use(json.dumps({"result": payload_text("octokit_issues_page1.json")}))
    fits = write_policy(tmp_path / "fits.toml", tmp_path / "spill", budget=4000)
    proc = run_hook(stdin, "--policy", str(fits), cwd=tmp_path, XDG_CONFIG_HOME=str(tmp_path))
    assert (proc.returncode, proc.stdout) == (0, b""), proc.stderr
    tight = write_policy(tmp_path / "tight.toml", tmp_path / "spill", budget=1000)
    proc = run_hook(stdin, "--policy", str(tight), cwd=tmp_path, XDG_CONFIG_HOME=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PostToolUse"
    assert is_shaped(out["updatedMCPToolOutput"])
    assert count_tokens(out["updatedMCPToolOutput"]) <= 1000


def test_failed_call_gets_a_hint_only_when_its_error_is_over_budget(tmp_path: Path) -> None:
    failure = {
        "session_id": "s",
        "transcript_path": "/nonexistent/s.jsonl",
        "cwd": "/tmp",
        "tool_input": {},
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "mcp__corpus__fail",
        "tool_use_id": "t",
    }
    long_error = " ".join(f"line {i}: upstream failure detail" for i in range(3000))
    proc = run_hook(json.dumps({**failure, "error": long_error}), cwd=tmp_path, XDG_CONFIG_HOME=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PostToolUseFailure" and out["additionalContext"]
    proc = run_hook(json.dumps({**failure, "error": "Error: 502"}), cwd=tmp_path, XDG_CONFIG_HOME=str(tmp_path))
    assert (proc.returncode, proc.stdout) == (0, b"")


def test_bad_policy_file_exits_1_without_output(tmp_path: Path) -> None:
    bad = tmp_path / "policy.toml"
    bad.write_text("budget = 'lots'\nmystery = 1\n", encoding="utf-8")
    proc = run_hook(post_tool_use("x" * 10_000), "--policy", str(bad), cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == b""
    assert str(bad) in proc.stderr.decode()


def test_hostshape_cli_dispatches_hook(tmp_path: Path) -> None:
    # `hostshape hook claude-code`, the command in the settings snippet, reaches the same main().
    policy = write_policy(tmp_path / "policy.toml", tmp_path / "spill", budget=1000)
    cli = [sys.executable, "-c", "import sys; from hostshape.cli import main; sys.exit(main())"]
    stdin = post_tool_use(json.dumps({"result": payload_text("octokit_issues_page1.json")}))
    proc = subprocess.run(
        [*cli, "hook", "claude-code", "--policy", str(policy)],
        input=stdin.encode(),
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, **hook_env()},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert count_tokens(json.loads(proc.stdout)["hookSpecificOutput"]["updatedMCPToolOutput"]) <= 1000


def test_usage_errors_never_exit_2(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "hostshape.cli.hook", "vscode"],
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, **hook_env()},
        timeout=60,
    )
    assert proc.returncode == 1 and proc.stdout == b"" and b"usage" in proc.stderr


def test_a_fault_in_the_adapter_leaves_the_result_alone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import io

    import hostshape.adapters.claude as adapter

    def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(adapter, "shape_hook_input", boom)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".hostshape.toml").write_text('on_fault = "pass"\n', encoding="utf-8")  # fail open: an opt-in
    out = io.StringIO()
    assert hook.main(["claude-code"], stdin=io.StringIO(post_tool_use("x" * 20_000)), stdout=out) == 0
    assert out.getvalue() == ""


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_a_fault_with_on_fault_refuse_withholds_the_result(
    host: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import io

    import hostshape.adapters.claude as adapter

    def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(adapter, "shape_hook_input", boom)
    monkeypatch.setattr("hostshape.shape", boom)
    policy = tmp_path / "refuse.toml"
    policy.write_text('on_fault = "refuse"\n', encoding="utf-8")
    out = io.StringIO()
    stdin = io.StringIO(post_tool_use({"content": [{"type": "text", "text": "x" * 20_000}]}))
    assert hook.main([host, "--policy", str(policy)], stdin=stdin, stdout=out) == 0
    answer = json.loads(out.getvalue())
    text = answer.get("reason") or answer["hookSpecificOutput"]["updatedMCPToolOutput"]
    assert "withheld" in text and "on_fault" in text


def test_nothing_but_hook_json_reaches_stdout(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import io

    import hostshape.adapters.claude as adapter

    def noisy(input_data: Any, policy: Any) -> dict[str, Any]:
        print("a stray print inside the library")
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": "shaped"}}

    monkeypatch.setattr(adapter, "shape_hook_input", noisy)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    assert hook.main(["claude-code"], stdin=io.StringIO(post_tool_use("x" * 20_000)), stdout=out) == 0
    assert json.loads(out.getvalue())["hookSpecificOutput"]["updatedMCPToolOutput"] == "shaped"


def test_policy_lookup_order(tmp_path: Path) -> None:
    project, xdg = tmp_path / "project", tmp_path / "xdg"
    env = {"CLAUDE_PROJECT_DIR": str(project), "XDG_CONFIG_HOME": str(xdg)}
    assert hook.policy_candidates(env) == [project / ".hostshape.toml", xdg / "hostshape" / "policy.toml"]
    assert hook.find_policy_file(env) is None
    (xdg / "hostshape").mkdir(parents=True)
    write_policy(xdg / "hostshape" / "policy.toml", tmp_path)
    assert hook.find_policy_file(env) == xdg / "hostshape" / "policy.toml"
    project.mkdir()
    write_policy(project / ".hostshape.toml", tmp_path)
    assert hook.find_policy_file(env) == project / ".hostshape.toml"
    assert hook.policy_candidates({"XDG_CONFIG_HOME": "relative"})[1] == Path.home() / ".config/hostshape/policy.toml"


# -- the real CLI, with the hook in a settings file ----------------------------------------------------------------
async def run_claude_code(tool: str, root: Path, hook_args: tuple[str, ...] = ()) -> dict[str, Any]:
    """One offline CLI run where the scripted model calls ``tool``; the only hook is the command in settings.json."""
    pytest.importorskip("claude_agent_sdk")
    from claude_agent_sdk import ClaudeAgentOptions, query

    from hostshape.testing.anthropic_server import AnthropicServer, ToolUse
    from hostshape.testing.claude import SERVER, offline_env

    config_dir, cwd = root / "config", root / "cwd"
    config_dir.mkdir(parents=True, exist_ok=True)
    cwd.mkdir(parents=True, exist_ok=True)
    command = shlex.join(hook_command(*hook_args))
    matcher = [{"matcher": "mcp__.*", "hooks": [{"type": "command", "command": command, "timeout": 60}]}]
    settings = root / "settings.json"
    settings.write_text(json.dumps({"hooks": {"PostToolUse": matcher, "PostToolUseFailure": matcher}}), "utf-8")
    stderr: list[str] = []
    with AnthropicServer([ToolUse(f"mcp__{SERVER}__{tool}", {})]) as server:
        mcp = mcp_server_command()
        options = ClaudeAgentOptions(
            env={**offline_env(server.base_url, config_dir), **hook_env(XDG_CONFIG_HOME=str(root / "xdg"))},
            cwd=str(cwd),
            setting_sources=[],
            settings=str(settings),
            mcp_servers={SERVER: {"type": "stdio", "command": mcp[0], "args": mcp[1:]}},
            allowed_tools=[f"mcp__{SERVER}"],
            max_turns=3,
            stderr=stderr.append,
        )
        async for _ in query(prompt="Use the tool.", options=options):
            pass
        results = server.tool_results()
    saved = sorted(config_dir.glob("projects/*/*/tool-results/*"))
    return {"received": results[0] if results else "", "saved": saved, "stderr": stderr}


@pytest.mark.host
async def test_result_under_the_host_limit_is_shaped(tmp_path: Path) -> None:
    # get_pull_request_files: 16,833 o200k tokens, under Claude Code's 25,000 but over the 4,000 budget. The policy
    # comes from .hostshape.toml in the project directory (Claude Code sets CLAUDE_PROJECT_DIR for hooks).
    (tmp_path / "cwd").mkdir()
    write_policy(tmp_path / "cwd" / ".hostshape.toml", tmp_path / "spill")
    run = await run_claude_code("get_pull_request_files", tmp_path)
    received = run["received"]
    assert received and received != payload_text("gh_pull_files_patches.json")
    assert is_shaped(received), received[:300]
    assert count_tokens(received) <= BUDGET
    assert list((tmp_path / "spill").iterdir()), "the full original was spilled where the project policy says"


@pytest.mark.host
async def test_result_over_the_host_limit_is_rescued_from_the_saved_file(tmp_path: Path) -> None:
    # list_pull_requests: 54,552 tokens, over the default MAX_MCP_OUTPUT_TOKENS of 25,000: Claude Code saves it to a
    # file and hands the hook only a notice; the hook reads the file and the model gets the shaped full result.
    policy = write_policy(tmp_path / "policy.toml", tmp_path / "spill")
    run = await run_claude_code("list_pull_requests", tmp_path, ("--policy", str(policy)))
    received = run["received"]
    assert run["saved"], "Claude Code saved the over-limit result to its tool-results folder"
    assert HOST_NOTICE not in received
    assert is_shaped(received), received[:300]
    assert count_tokens(received) <= BUDGET
    missing = [n for n in PR_NUMBERS if str(n) not in received]
    assert not missing, f"PR numbers missing from the shaped result: {missing}"


# -- Codex ----------------------------------------------------------------------------------------------------------
# OpenAI's Codex CLI is an npm package, not a Python dependency: these tests run when HOSTSHAPE_CODEX_BIN names its
# binary (or `codex` is on PATH), e.g. after `npm install --prefix /tmp/codex @openai/codex@0.171.0`.
def codex_binary() -> str | None:
    import shutil

    return os.environ.get("HOSTSHAPE_CODEX_BIN") or shutil.which("codex")


def codex_input(tool_response: Any, tool: str = "mcp__corpus__list_pull_requests") -> str:
    return json.dumps(
        {
            "session_id": "s",
            "turn_id": "t",
            "transcript_path": None,
            "cwd": "/tmp",
            "model": "m",
            "permission_mode": "bypassPermissions",
            "hook_event_name": "PostToolUse",
            "tool_name": tool,
            "tool_input": {},
            "tool_response": tool_response,
            "tool_use_id": "call_1",
        }
    )


def test_codex_mode_shapes_a_call_tool_result_into_a_block_reason(tmp_path: Path) -> None:
    text = payload_text("gh_pulls_list.json")
    big = {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text}, "isError": False}
    policy = write_policy(tmp_path / "policy.toml", tmp_path / "spill")
    proc = subprocess.run(
        [sys.executable, "-m", "hostshape.cli.hook", "codex", "--policy", str(policy)],
        input=codex_input(big).encode(),
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, **hook_env()},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"decision", "reason"} and out["decision"] == "block"
    assert is_shaped(out["reason"]) and count_tokens(out["reason"]) <= BUDGET
    assert len(out["reason"].encode()) <= hook.CODEX_MAX_FEEDBACK_BYTES  # Codex cuts longer hook feedback
    small = {"content": [{"type": "text", "text": "ok"}], "structuredContent": {"result": "ok"}, "isError": False}
    proc = subprocess.run(
        [sys.executable, "-m", "hostshape.cli.hook", "codex", "--policy", str(policy)],
        input=codex_input(small).encode(),
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, **hook_env()},
        timeout=60,
    )
    assert (proc.returncode, proc.stdout) == (0, b"")


class ResponsesServer:
    """A loopback OpenAI Responses API (streaming) that scripts Codex 0.171.0's model for one MCP tool call.

    Codex defers MCP tools behind its client-side ``tool_search`` tool, so the script is: a ``tool_search_call``
    for the tool, then a ``function_call`` in the namespace it returned (``mcp__<server>``), then a final message.
    ``outputs`` records every ``function_call_output`` the model received.
    """

    def __init__(self, tool: str) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.namespace, _, self.tool = tool.rpartition("__")
        self.outputs: list[str] = []
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                server.requests.append(body)
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                for event in server.events(body):
                    self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
                self.close_connection = True

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> ResponsesServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def events(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        items = [i for i in body.get("input", []) if isinstance(i, dict)]
        outputs = [i for i in items if i.get("type") == "function_call_output"]
        n = len(self.requests)
        if outputs:
            output = outputs[-1].get("output")
            self.outputs.append(output if isinstance(output, str) else json.dumps(output))
            item: dict[str, Any] = {
                "type": "message",
                "id": f"msg_{n}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "done", "annotations": []}],
            }
        elif any(i.get("type") == "tool_search_output" for i in items):
            item = {
                "type": "function_call",
                "id": f"fc_{n}",
                "call_id": "call_1",
                "namespace": self.namespace,
                "name": self.tool,
                "arguments": "{}",
                "status": "completed",
            }
        else:
            item = {
                "type": "tool_search_call",
                "id": f"ts_{n}",
                "call_id": "ts_1",
                "execution": "client",
                "status": "completed",
                "arguments": {"query": self.tool},
            }
        response = {
            "id": f"resp_{n}",
            "object": "response",
            "status": "completed",
            "output": [item],
            "usage": {
                "input_tokens": 1,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 1,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 2,
            },
        }
        return [
            {"type": "response.created", "response": {**response, "status": "in_progress", "output": []}},
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": response},
        ]


def run_codex(tool: str, root: Path, hook_args: tuple[str, ...] | None) -> str:
    """One offline ``codex exec`` run; ``hook_args`` None runs Codex without the hook. Returns what the model got."""
    binary = codex_binary()
    if binary is None:
        pytest.skip("Codex CLI not installed (set HOSTSHAPE_CODEX_BIN)")
    home, cwd = root / "codex-home", root / "cwd"
    home.mkdir(parents=True, exist_ok=True)
    cwd.mkdir(parents=True, exist_ok=True)
    mcp = mcp_server_command()
    with ResponsesServer(f"mcp__corpus__{tool}") as server:
        config = [
            'model = "gpt-5.5"',
            'model_provider = "loopback"',
            'approval_policy = "never"',
            'sandbox_mode = "danger-full-access"',
            "check_for_update_on_startup = false",
            "",
            "[model_providers.loopback]",
            'name = "loopback"',
            f'base_url = "{server.base_url}"',
            'wire_api = "responses"',
            'env_key = "HOSTSHAPE_LOOPBACK_KEY"',
            "supports_websockets = false",
            "request_max_retries = 0",
            "stream_max_retries = 0",
            "",
            "[mcp_servers.corpus]",
            f"command = {json.dumps(mcp[0])}",
            f"args = {json.dumps(mcp[1:])}",
            'default_tools_approval_mode = "approve"',
            "required = true",
            "startup_timeout_sec = 60",
        ]
        if hook_args is not None:
            command = shlex.join([sys.executable, "-m", "hostshape.cli.hook", "codex", *hook_args])
            config += [
                "",
                "[[hooks.PostToolUse]]",
                'matcher = "mcp__.*"',
                "[[hooks.PostToolUse.hooks]]",
                'type = "command"',
                f"command = {json.dumps(command)}",
                "timeout = 60",
            ]
        (home / "config.toml").write_text("\n".join(config) + "\n", encoding="utf-8")
        env = {
            **os.environ,
            **hook_env(XDG_CONFIG_HOME=str(root / "xdg")),
            "CODEX_HOME": str(home),
            "HOSTSHAPE_LOOPBACK_KEY": "dummy",
        }
        proc = subprocess.run(
            [binary, "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "Use the tool."],
            cwd=cwd,
            env=env,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=90,
        )
        assert proc.returncode == 0, proc.stderr.decode()[-2000:]
        assert server.outputs, proc.stderr.decode()[-2000:]
        return server.outputs[0]


@pytest.mark.host
def test_codex_result_is_shaped(tmp_path: Path) -> None:
    # list_pull_requests, 54,552 tokens. Codex hands the hook the whole CallToolResult; without the hook it cuts the
    # middle out of the output itself. With it the model gets the shaped result as the block reason.
    policy = write_policy(tmp_path / "policy.toml", tmp_path / "spill")
    received = run_codex("list_pull_requests", tmp_path, ("--policy", str(policy)))
    assert "Full hook output saved" not in received  # Codex's own cut of long hook feedback did not apply
    assert is_shaped(received), received[:300]
    assert count_tokens(received) <= BUDGET
    missing = [n for n in PR_NUMBERS if str(n) not in received]
    assert not missing, f"PR numbers missing from the shaped result: {missing}"


@pytest.mark.host
def test_codex_without_the_hook_gets_its_own_middle_truncation(tmp_path: Path) -> None:
    received = run_codex("list_pull_requests", tmp_path, None)
    assert "tokens truncated" in received and not is_shaped(received)


# -- hostile tool output through the real hook command (issue 17) ---------------------------------------------------
def _replacement(proc: subprocess.CompletedProcess[bytes]) -> str:
    assert proc.returncode == 0, proc.stderr
    return str(json.loads(proc.stdout)["hookSpecificOutput"]["updatedMCPToolOutput"])


HOST_TAIL = (
    "\n\n[OUTPUT TRUNCATED - exceeded 25000 token limit]\n\nThe tool output was truncated. If this MCP server "
    "provides pagination or filtering tools, use them to retrieve specific portions of the data."
)


@pytest.mark.parametrize(
    "response",
    [
        "\n" * 400_000,
        [{"type": "text", "text": "\n" * 400_000}],
        "\n" * 399_000 + "[OUTPUT TRUNCATED - exceeded 25000 token limit]",
        HOST_TAIL * 2_000,
        ("Error: result (1 characters" + "\n") * 20_000,
        "http://" + "a" * 400_000,
        ("http://" + "a" * 190 + " ") * 2_000,
    ],
    ids=[
        "newlines",
        "newline-block",
        "newlines-then-mark",
        "repeated-marks",
        "repeated-notice-heads",
        "long-url",
        "many-urls",
    ],
)
def test_long_runs_of_one_pattern_take_no_time_and_fit(response: Any, tmp_path: Path) -> None:
    # 400,000 newlines froze the hook for 100 s (a backtracking pattern for the truncation mark). The command is
    # given 60 s by run_hook; every pattern that sees tool output is linear, so this takes well under a second of
    # shaping on top of the interpreter's start.
    policy = write_policy(tmp_path / "p.toml", tmp_path / "spill", budget=1600)
    proc = run_hook(post_tool_use(response), "--policy", str(policy), cwd=tmp_path, XDG_CONFIG_HOME=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    if proc.stdout:
        assert count_tokens(_replacement(proc)) <= 1600


@pytest.mark.parametrize("inner", ['say "hi"\t\x01\x02 ' * 200, "ü\x07" * 700, "\x00\x1f" * 700])
def test_the_budget_holds_for_the_escaped_wrapper_the_model_reads(inner: str, tmp_path: Path) -> None:
    # FastMCP's "-> str" result reaches the hook as {"result":"..."}: left alone, the model reads that JSON-escaped
    # string. Text that fits unwrapped but not escaped must be replaced (the finding: 4,805 tokens at 1,600).
    wrapper = json.dumps({"result": inner}, separators=(",", ":"), ensure_ascii=False)
    budget = 1600
    assert count_tokens(inner) <= budget < count_tokens(wrapper)
    policy = write_policy(tmp_path / "p.toml", tmp_path / "spill", budget=budget)
    proc = run_hook(post_tool_use(wrapper), "--policy", str(policy), cwd=tmp_path, XDG_CONFIG_HOME=str(tmp_path))
    text = _replacement(proc)
    assert count_tokens(text) <= budget
    assert text == inner  # it fitted unwrapped: the model gets the text itself, whole


def test_the_host_cut_in_two_blocks_is_recognised_and_says_the_rest_is_gone(tmp_path: Path) -> None:
    # ENABLE_MCP_LARGE_OUTPUT_FILES=false and a tool whose result is content blocks: the host's cut text, then its
    # notice as a second block (observed with Claude Code 2.1.332).
    kept = payload_text("gh_pulls_list.json")[:100_000]
    blocks = [{"type": "text", "text": kept}, {"type": "text", "text": HOST_TAIL}]
    policy = write_policy(tmp_path / "p.toml", tmp_path / "spill")
    proc = run_hook(
        post_tool_use(blocks, tool="mcp__corpus__fetch_plain"),
        "--policy",
        str(policy),
        cwd=tmp_path,
        XDG_CONFIG_HOME=str(tmp_path),
    )
    text = _replacement(proc)
    assert text.startswith("[hostshape] Claude Code truncated this tool result")
    assert "cannot be retrieved" in text and "OUTPUT TRUNCATED" not in text
    body = json.loads(text.split("\n", 1)[1])
    assert [r["number"] for r in as_records(body["items"])] == PR_NUMBERS[: len(as_records(body["items"]))]
    assert count_tokens(text) <= BUDGET


def test_an_overflow_notice_in_text_blocks_is_not_passed_through_silently(tmp_path: Path) -> None:
    # The notice as a one-block list: the file is not this session's, so the notice stays, but the hook looked at
    # it as a notice (a log line says why it was left) rather than shaping it as a small result.
    notice = (
        "Error: result (196,183 characters) exceeds maximum allowed tokens. Output has been saved to "
        f"{tmp_path}/mcp-corpus-list_issues_small-1796012036567-9yp700.txt.\nFormat: Plain text\n"
    )
    policy = write_policy(tmp_path / "p.toml", tmp_path / "spill")
    proc = run_hook(
        post_tool_use([{"type": "text", "text": notice}]),
        "--policy",
        str(policy),
        cwd=tmp_path,
        XDG_CONFIG_HOME=str(tmp_path),
        HOSTSHAPE_LOG_LEVEL="INFO",
    )
    assert (proc.returncode, proc.stdout) == (0, b"")
    assert b"overflow notice" in proc.stderr

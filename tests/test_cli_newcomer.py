"""The newcomer's path (issue 28): what the ``hostshape`` command does with a mistaken budget, an empty input, a bad
policy file nobody named, a custom spill folder, a rule for another server, and the adapters' former ``install``
forms. Each through the real ``hostshape`` process (``python -m hostshape.cli``) in a temporary folder."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import hostshape
from hostshape import Policy
from hostshape.tokens import count_tokens

REPO_ROOT = Path(hostshape.__file__).resolve().parents[1]
RECORDS = json.dumps([{"id": i, "title": f"issue {i} about the parser", "body": "text " * 20} for i in range(300)])


def hostshape_cli(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT),
        "XDG_CONFIG_HOME": str(cwd / "config"),
        "XDG_CACHE_HOME": str(cwd / "cache"),
    }
    env.pop("HOSTSHAPE_POLICY", None)
    return subprocess.run(
        [sys.executable, "-m", "hostshape.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        input=None if stdin is None else stdin.decode(),
        timeout=120,
    )


@pytest.fixture
def result_file(tmp_path: Path) -> Path:
    path = tmp_path / "result.json"
    path.write_text(RECORDS)
    return path


def test_budget_0_is_an_error(tmp_path: Path, result_file: Path) -> None:
    done = hostshape_cli("shape", str(result_file), "--budget", "0", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "--budget" in done.stderr and "at least 1" in done.stderr


@pytest.mark.parametrize("budget", ["1", "10"])
def test_a_tiny_budget_is_a_clear_error_naming_the_smallest_that_works(
    tmp_path: Path, result_file: Path, budget: str
) -> None:
    done = hostshape_cli("shape", str(result_file), "--budget", budget, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    smallest = int(done.stderr.split("--budget ")[1].split()[0])
    assert "cannot hold" in done.stderr
    works = hostshape_cli("shape", str(result_file), "--budget", str(smallest), cwd=tmp_path)
    assert works.returncode == 0, works.stderr
    handle = json.loads(works.stdout)["_hostshape"]["handle"]
    assert count_tokens(works.stdout) <= smallest
    back = hostshape_cli("read", handle, cwd=tmp_path)
    assert back.returncode == 0 and "issue 0 about the parser" in back.stdout


@pytest.mark.parametrize("content", [b"", b"  \n"])
def test_an_empty_input_says_so(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "empty.json").write_bytes(content)
    for args, stdin in ((["shape", "empty.json"], None), (["shape", "-"], content)):
        done = hostshape_cli(*args, cwd=tmp_path, stdin=stdin)
        assert done.returncode == 1 and done.stdout == ""
        assert "empty" in done.stderr


def test_a_policy_file_found_by_the_search_is_named_in_its_error(tmp_path: Path, result_file: Path) -> None:
    (tmp_path / ".hostshape.toml").write_text("budgt = 1000\n")
    done = hostshape_cli("shape", str(result_file), cwd=tmp_path)
    assert done.returncode == 2
    assert str(tmp_path / ".hostshape.toml") in done.stderr and "budgt" in done.stderr


def test_with_a_custom_spill_folder_the_hint_s_read_command_works_as_written(tmp_path: Path, result_file: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(f'budget = 800\n[spill]\ndir = "{(tmp_path / "my-spill").as_posix()}"\n')
    shaped = hostshape_cli("shape", str(result_file), "--policy", str(policy), cwd=tmp_path)
    env = json.loads(shaped.stdout)["_hostshape"]
    command = env["hint"].split("`")[1].replace("HANDLE", env["handle"]).replace("NEXT", env["next"])
    assert "--policy" in command
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    argv = shlex.split(command)
    assert argv[:2] == ["hostshape", "read"]
    page = hostshape_cli(*argv[1:], cwd=elsewhere)
    assert page.returncode == 0, page.stderr
    assert json.loads(page.stdout)["items"]


def test_stats_say_which_rule_applied_and_which_did_not_match_the_server(tmp_path: Path, result_file: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text('budget = 2000\n[[rules]]\ntool = "list_issues"\nserver = "github"\nbudget = 300\n')
    base = ("shape", str(result_file), "--policy", str(policy), "--tool", "list_issues", "--stats")
    other = hostshape_cli(*base, "--server", "gitlab", cwd=tmp_path)
    stats = json.loads(other.stderr.strip().splitlines()[-1])
    assert stats["rule"] is None and stats["budget"] == 2000
    assert stats["rules_skipped"][0]["server"] == "github" and "gitlab" in stats["rules_skipped"][0]["why"]
    same = hostshape_cli(*base, "--server", "github", cwd=tmp_path)
    stats = json.loads(same.stderr.strip().splitlines()[-1])
    assert stats["rule"]["server"] == "github" and stats["budget"] == 300 and "rule_why" in stats


# -- the adapters' former forms ---------------------------------------------------------------------------------------
def test_claude_install_of_a_policy_alone_gives_options_with_hostshape() -> None:
    pytest.importorskip("claude_agent_sdk")
    from claude_agent_sdk import ClaudeAgentOptions

    from hostshape.adapters import claude

    options = claude.install(Policy(budget=1000))
    assert isinstance(options, ClaudeAgentOptions)
    assert "hostshape" in options.mcp_servers and "PostToolUse" in options.hooks
    with pytest.raises(TypeError, match="ClaudeAgentOptions"):
        claude.install("not options")  # type: ignore[arg-type]


def test_openai_agents_install_of_a_policy_alone_is_a_clear_type_error() -> None:
    pytest.importorskip("agents")
    from hostshape.adapters import openai_agents

    with pytest.raises(TypeError, match=r"install\(Agent\(\.\.\.\), Policy"):
        openai_agents.install(Policy())  # type: ignore[arg-type]


def test_without_the_claude_sdk_install_raises_the_import_error_naming_the_extra(tmp_path: Path) -> None:
    probe = (
        "import sys; sys.modules['claude_agent_sdk'] = None\n"
        "from hostshape import Policy\n"
        "from hostshape.adapters.claude import install\n"
        "try:\n    install(Policy())\n"
        "except ImportError as exc:\n    print('ImportError', exc)\n"
        "except Exception as exc:\n    print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        timeout=60,
    )
    assert done.stdout.startswith("ImportError") and "hostshape[claude]" in done.stdout, done.stdout + done.stderr

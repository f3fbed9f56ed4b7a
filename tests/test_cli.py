"""The command line as a newcomer uses it: exit codes, the way back from `shape` to `read`, demo host names, the
one policy discovery rule, --version, python -m hostshape, and help text without RST markup."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hostshape import __version__
from hostshape.cli import main, policy_file
from hostshape.cli.demo import HOSTS, host_names, resolve_hosts
from hostshape.examples import payload_path
from hostshape.output.columns import as_records

# imported now, not under capsys: mcp binds sys.stderr as stdio_client's default errlog at import time
with contextlib.suppress(ImportError):
    import mcp.client.stdio  # noqa: F401

ISSUES = payload_path("gh_issues_list.json")
README = payload_path("awesome_python_README.md")


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No policy file of the user's or of this repository is found; spills go under tmp_path."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv(policy_file.ENV_VAR, raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_shape_names_hostshape_read_and_read_follows_next_to_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "shape", str(ISSUES), "--budget", "800")
    assert code == 0
    env = json.loads(out)["_hostshape"]
    assert env["truncated"] and env["next"]
    assert "hostshape read HANDLE --cursor NEXT" in env["hint"]
    seen = {r["number"] for r in as_records(json.loads(out)["items"])}
    cursor, pages = env["next"], 0
    while cursor and pages < 60:
        code, page, _ = run(capsys, "read", env["handle"], "--cursor", cursor, "--budget", "800")
        assert code == 0
        doc = json.loads(page)
        assert "hostshape read HANDLE" in doc["_hostshape"]["hint"]
        seen |= {r["number"] for r in as_records(doc.get("items", []))}
        cursor, pages = doc["_hostshape"].get("next"), pages + 1
    assert seen == {r["number"] for r in json.loads(ISSUES.read_text())}


def test_shaped_text_names_the_read_command_on_its_last_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "shape", str(README), "--budget", "300")
    assert code == 0
    last = out.splitlines()[-1]
    assert last.startswith("[hostshape] truncated") and "next=" in last
    assert "hostshape read HANDLE --cursor NEXT" in last


def test_read_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "shape", str(ISSUES), "--budget", "800")
    handle = json.loads(out)["_hostshape"]["handle"]
    assert run(capsys, "read", "hs_000000000000000000000000")[0] == 1
    code, out, err = run(capsys, "read", handle, "--query", "[?")
    assert (code, out) == (2, "") and "bad --query" in err
    code, out, err = run(capsys, "read", handle, "--query", "abs(@)")  # parses, fails on this data
    assert code == 2 and "query" in err
    code, _, err = run(capsys, "read", handle, "--cursor", "not-a-cursor")
    assert code == 2 and "cursor" in err
    assert run(capsys, "read", handle, "--query", "[].number")[0] == 0
    code, out, _ = run(capsys, "shape", str(README), "--budget", "300")
    handle, cursor = (out.splitlines()[-1].partition(f"{key}=")[2].split()[0] for key in ("handle", "next"))
    code, out, err = run(capsys, "read", handle, "--cursor", cursor, "--lines", "1-2")  # not the part it pages
    assert (code, out) == (2, "") and "this cursor pages" in err


def test_demo_accepts_every_documented_host_name_and_rejects_others(capsys: pytest.CaptureFixture[str]) -> None:
    for host in HOSTS:
        for name in host_names(host):
            assert resolve_hosts([name]) == [host]
            assert resolve_hosts([name.upper().replace("_", "-")]) == [host]
    assert [h.key for h in resolve_hosts(["openai", "pydantic-ai"])] == ["openai_agents", "pydantic_ai"]
    with pytest.raises(SystemExit) as exit_:
        main(["demo", "--host", "openai2"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "unknown host 'openai2'" in err and all(h.key in err for h in HOSTS)
    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert all(name in shown for h in HOSTS for name in host_names(h))


def test_a_name_two_demo_rows_share_means_the_first(monkeypatch: pytest.MonkeyPatch) -> None:
    from hostshape.cli import demo

    claude = next(h for h in HOSTS if h.key == "claude")
    again = demo.Host("claude_again", "claude", "claude_agent_sdk")  # a row that reuses another host's extra
    monkeypatch.setattr(demo, "HOSTS", (*HOSTS, again))
    assert resolve_hosts(["claude"]) == [claude] and resolve_hosts(["claude_agent_sdk"]) == [claude]
    assert resolve_hosts(["claude-again"]) == [again] and host_names(again) == ("claude_again",)


def test_help_has_text_for_every_option_and_no_rst_markup(capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from hostshape.cli import _parser

    parser = _parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in [("", parser), *subs.choices.items()]:
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            assert action.help, f"hostshape {name} {action.option_strings or action.dest} has no help text"
    for command in ([], ["shape"], ["read"], ["demo"], ["measure"]):
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        out = capsys.readouterr().out
        assert "``" not in out and ":func:" not in out, out


def test_version_and_python_dash_m() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hostshape", "--version"], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == f"hostshape {__version__}" and __version__[0].isdigit()


def test_one_policy_discovery_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    user = tmp_path / "config" / "hostshape" / "policy.toml"
    user.parent.mkdir(parents=True)
    user.write_text("budget = 700\n")
    project = tmp_path / ".hostshape.toml"
    named = tmp_path / "named.toml"
    named.write_text("budget = 900\n")
    flag = tmp_path / "flag.toml"
    flag.write_text("budget = 1000\n")
    assert policy_file.find() == user
    project.write_text("budget = 800\n")
    assert policy_file.find() == project
    monkeypatch.setenv(policy_file.ENV_VAR, str(named))
    assert policy_file.find() == named
    assert policy_file.find(str(flag)) == flag
    # every command applies it: shape's output fits the discovered budget, read pages by it, the hook finds it
    code, _, err = run(capsys, "shape", str(ISSUES), "--stats")
    assert code == 0 and json.loads(err)["budget"] == 900
    from hostshape.cli import hook

    assert hook.find_policy_file(dict(os.environ)) == named
    monkeypatch.setenv(policy_file.ENV_VAR, str(tmp_path / "missing.toml"))
    code, _, err = run(capsys, "shape", str(ISSUES))
    assert code == 2 and "missing.toml" in err


def test_measure_runs_the_example_server_with_this_python(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("mcp")
    from hostshape.cli import measure

    code, out, err = run(capsys, "measure", "--example", "--json", "--call", "list_pull_requests", "--call", "fail")
    assert code == 0, err
    report = json.loads(out)
    assert report["server"] == measure.EXAMPLE_SERVER and len(report["tools"]) >= 10
    pulls, fail = report["calls"]
    assert pulls["raw_tokens"] > 50_000 and pulls["shaped_tokens"] <= 4000 and not pulls["is_error"]
    assert fail["is_error"]


def test_measure_shows_a_failing_servers_exit_status_and_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("mcp")
    script = "import sys; print('boom: No module named mcp', file=sys.stderr); sys.exit(3)"
    code, out, err = run(capsys, "measure", "--timeout", "30", "--", sys.executable, "-c", script)
    assert code == 1 and out == ""
    assert "exited with status 3" in err and "boom: No module named mcp" in err
    assert "ExceptionGroup" not in err and "Traceback" not in err

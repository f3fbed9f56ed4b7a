"""The README as a newcomer reads it: every ```python block is a complete program that runs as written (imports
included) and prints what it says, offline: each framework block, without a provider key, runs its agent with the
host's public scripted model (hostshape.testing.<host>.scripted_model), whose model must read all eleven pull
requests within the budget, and gives the model the way back (hostshape_read). The README's shell lines run too,
where they are safe to run (hostshape shape / read, proxy-config in a scratch HOME); the JSON / TOML pieces are what
the code accepts. docs/claude-code-hook.md's stdin example runs through the real hook command.

For OpenAI Agents, LangChain and Pydantic AI the tests then run the block's own objects through a cut result and a
hostshape_read call following next (Claude and ADK: tests/test_*_adapter.py and the notebooks do that)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import PR_NUMBERS

from hostshape import Policy
from hostshape.adapters.registry import HOSTS, hosts
from hostshape.output.columns import as_records
from hostshape.tokens import count_tokens

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
HOST_SETUP = (ROOT / "docs" / "host-setup.md").read_text(encoding="utf-8")  # the README's one line per host, in code
POLICY_DOC = (ROOT / "docs" / "policy.md").read_text(encoding="utf-8")
TESTING_DOC = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
HOOK_DOC = (ROOT / "docs" / "claude-code-hook.md").read_text(encoding="utf-8")
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY", "AWS_ACCESS_KEY_ID")


def fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.DOTALL | re.MULTILINE)


PYTHON = fenced(README, "python") + fenced(HOST_SETUP, "python")


def _adapter(block: str) -> re.Match[str] | None:
    """The ``from hostshape.adapters.<key> import`` line of a block (its group 1 is the key), or None."""
    return re.search(r"from hostshape\.adapters\.(\w+) import", block)


def _read_tool_names(g: dict[str, Any]) -> set[str]:
    """The retrieval tools a snippet's agent offers the model, by host."""
    names: set[str] = set()
    if "options" in g:  # Claude Agent SDK
        names |= {t.rsplit("__", 1)[-1] for t in g["options"].allowed_tools}
        assert "hostshape" in g["options"].mcp_servers
    if "agent" in g and hasattr(g["agent"], "tools") and isinstance(g["agent"].tools, list):  # OpenAI Agents, ADK
        names |= {getattr(t, "name", "") for t in g["agent"].tools}
    if "read_tool" in g:  # LangChain, ADK, Strands (tool_name), Agent Framework, Agno
        tool = g["read_tool"]
        names.add(getattr(tool, "name", None) or getattr(tool, "tool_name", ""))
    for tool in g.get("tools", []):  # LlamaIndex
        names.add(getattr(getattr(tool, "metadata", None), "name", None) or "")
    for toolset in g.get("toolsets", []):  # Pydantic AI
        names |= set(getattr(toolset, "tools", None) or ())
    if "mcp" in g and type(g["mcp"]).__name__ == "FastMCP":  # a FastMCP server: what a client lists
        import asyncio

        from fastmcp import Client

        async def listed() -> set[str]:
            async with Client(g["mcp"]) as client:
                return {tool.name for tool in await client.list_tools()}

        names |= asyncio.run(listed())
    return names


def test_the_readme_has_the_python_blocks_it_promises() -> None:
    adapters = {m for block in PYTHON for m in re.findall(r"from hostshape\.adapters\.(\w+) import", block)}
    assert {h.key for h in hosts(installs=True)} <= adapters


def _scripted_model(g: dict[str, Any]) -> Any:
    """The public scripted model a block ran with (an object of ``hostshape.testing``), or None."""
    return next((v for v in g.values() if type(v).__module__.startswith("hostshape.testing.")), None)


# Runs in the block's own interpreter: the block as written (a fresh namespace, not named __main__, so a server
# block does not start serving), then what the test asks of its objects (a function of this module), as JSON. The
# block's facts are taken before that step, whose printing goes to stderr and whose failure is recorded as
# "then_error", so what the block itself printed and did is checked apart from it.
_CHILD = """
import contextlib, json, runpy, sys, traceback
sys.path.insert(0, {tests!r})
import test_readme
g = runpy.run_path(sys.argv[1], run_name="readme_block")
facts = {{"read_tools": sorted(test_readme._read_tool_names(g)), "then": None, "then_error": None}}
model = test_readme._scripted_model(g)
facts["received"] = list(model.received) if model is not None else None
if sys.argv[3]:
    try:
        with contextlib.redirect_stdout(sys.stderr):
            facts["then"] = getattr(test_readme, sys.argv[3])(g)
    except BaseException:
        facts["then_error"] = traceback.format_exc()
with open(sys.argv[2], "w", encoding="utf-8") as out:
    json.dump(facts, out)
"""


def _run_block(block: str, tmp_path: Path, then: str = "") -> tuple[list[str], dict[str, Any]]:
    """Run ``block`` in its own interpreter in ``tmp_path`` without provider keys, then ``then(g)`` on its globals;
    returns the lines it printed and what the child found (``read_tools``, ``received``, ``then``)."""
    adapter = _adapter(block)
    if adapter:
        pytest.importorskip(next(h.framework for h in HOSTS if h.key == adapter.group(1)))
    path, facts = tmp_path / "block.py", tmp_path / "facts.json"
    path.write_text(block, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD.format(tests=str(ROOT / "tests")), str(path), str(facts), then],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines(), json.loads(facts.read_text(encoding="utf-8"))


# The blocks test_the_block_pages_through_hostshape_read also pages through, in the same interpreter as the block.
PAGED = ("pydantic_ai", "openai_agents", "langchain")
BlockRun = tuple[list[str], dict[str, Any]]


@pytest.fixture(scope="module")
def run_block(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], BlockRun]:
    """``_run_block`` once per block for this module: a PAGED host's block runs its ``page_<adapter>`` step right
    after it, so the block test and the paging test share one interpreter (one framework import, one agent run)."""
    runs: dict[str, BlockRun] = {}

    def run(block: str) -> BlockRun:
        if block not in runs:
            adapter = _adapter(block)
            then = f"page_{adapter.group(1)}" if adapter and adapter.group(1) in PAGED else ""
            runs[block] = _run_block(block, tmp_path_factory.mktemp("block"), then)
        return runs[block]

    return run


# Each block's test is named after the adapter it imports (scripts/test selects the mcp-2-only hosts' blocks by name).
@pytest.mark.parametrize("block", PYTHON, ids=[m.group(1) if (m := _adapter(b)) else "core" for b in PYTHON])
def test_each_python_block_runs_as_written_and_offline(block: str, run_block: Callable[[str], BlockRun]) -> None:
    adapter = _adapter(block)
    if adapter and adapter.group(1) == "fastmcp":
        try:
            from fastmcp import FastMCP  # noqa: F401 - fastmcp-slim (a Pydantic AI dependency) has no server
        except ImportError as exc:
            pytest.skip(f"no FastMCP server: {exc}")
    printed, facts = run_block(block)
    if adapter:  # every documented one-liner gives the model the way back
        assert "hostshape_read" in facts["read_tools"], f"{adapter.group(1)}: no hostshape_read registered"
    if adapter and adapter.group(1) != "fastmcp":  # host blocks: install(), the example server, a scripted run
        assert "install(" in block
        assert "hostshape.examples.mcp_server" in block and "sys.executable" in block
        assert facts["received"], "without a key the block runs no public scripted model"
        # the scripted model's answer; a framework's own console panels (CrewAI's, drawn in boxes) may follow it, and
        # CrewAI's console thread can start one on the line the answer is printed on ("done╭───")
        own = [line.split("╭", 1)[0] for line in printed if not line.lstrip().startswith(("╭", "│", "╰"))]
        assert own and own[-1].strip() == "done", printed[-5:]
        received = facts["received"][0]  # what the model read of list_pull_requests: all of it, within the budget
        assert count_tokens(received) <= 4000 and all(str(n) in received for n in PR_NUMBERS)
    elif "shape(" in block:  # What the model reads
        assert printed[0].startswith('{"_hostshape"') and printed[1] == "True", printed[:2]


def _shell_lines(text: str) -> list[str]:
    lines = (line.split("  #")[0].strip() for block in fenced(text, "bash") for line in block.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


# The README's shell lines that the suite does not run here, and why.
NOT_RUN = {
    "scripts/demo": "tests/test_demo.py runs the demo; this line creates .venv",
    "scripts/test": "the suite itself",
    "pip install": "installs: scripts/test installs each extra set in its own environment, test_packaging the wheel",
}


def test_the_readme_shell_lines_run_as_written(tmp_path: Path) -> None:
    """Each shell line is run (hostshape as the console script of this interpreter, HOME a scratch folder) or named
    in NOT_RUN; HANDLE and NEXT are taken from the envelope the line before printed, as the README says."""
    bin_dir, home = tmp_path / "bin", tmp_path / "home"
    bin_dir.mkdir()
    (home / ".cursor").mkdir(parents=True)
    servers = {"corpus": {"command": sys.executable, "args": ["-m", "hostshape.examples.mcp_server"]}}
    (home / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2) + "\n")
    shim = bin_dir / "hostshape"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m hostshape "$@"\n')
    shim.chmod(0o755)
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    ran: list[str] = []
    envelope: dict[str, Any] = {}
    for line in _shell_lines(README):
        if any(line.startswith(prefix) for prefix in NOT_RUN):
            continue
        assert line.startswith(("hostshape ", ".venv/bin/hostshape ")), f"a README shell line this test ignores: {line}"
        command = line.removeprefix(".venv/bin/")
        if "HANDLE" in command:
            command = command.replace("HANDLE", envelope["handle"]).replace("NEXT", envelope["next"])
        done = subprocess.run(
            ["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        ran.append(line)
        if command.startswith("hostshape proxy-config wrap"):
            _assert_wrapped_or_refused(done, home / ".cursor" / "mcp.json")
            continue
        assert done.returncode == 0, (line, done.stderr[-2000:])
        if command.startswith(("hostshape shape", "hostshape read")):
            out = json.loads(done.stdout)
            assert count_tokens(done.stdout.strip()) <= 1000 and out["_hostshape"]["truncated"], line
            if command.startswith("hostshape shape"):  # every issue, whole or in the index
                index = [row[0] for row in out.get("_index", {}).get("rows", []) if isinstance(row, list)]
                assert sorted([r["number"] for r in as_records(out["items"])] + index) == list(range(1, 51))
            else:  # a page of whole records
                assert out["items"] and all("title" in r for r in as_records(out["items"]))
            envelope = out["_hostshape"]
        elif command.startswith("hostshape proxy-config show"):
            assert "proxy" in done.stdout and "corpus" in done.stdout
    assert len(ran) >= 4, ran  # shape, read, proxy-config show and wrap


def _assert_wrapped_or_refused(done: subprocess.CompletedProcess[str], config: Path) -> None:
    """``wrap`` rewrites the file (a backup first) where ``hostshape proxy`` can start, else refuses and says why."""
    from hostshape.proxy import require_mcp

    try:
        require_mcp()
    except ImportError:
        assert done.returncode == 2 and "cannot start here" in done.stderr
        return
    assert done.returncode == 0, done.stderr[-2000:]
    assert '"proxy"' in config.read_text() and config.with_name("mcp.json.before-hostshape-wrap").is_file()


def test_the_policy_toml_loads_and_equals_nothing_surprising(tmp_path: Path) -> None:
    blocks = [b for b in fenced(README, "toml") if "budget" in b]
    assert blocks
    for block in blocks:
        path = tmp_path / "policy.toml"
        path.write_text(block, encoding="utf-8")
        policy = Policy.from_toml(path)
        assert policy.budget == 4000 and policy.rules


def test_settings_json_covers_post_tool_use_and_its_failure() -> None:
    settings = [json.loads(b) for b in fenced(README, "json") if '"hooks"' in b]
    assert settings
    for hooks in (s["hooks"] for s in settings):
        assert {"PostToolUse", "PostToolUseFailure"} <= set(hooks)
        for entries in hooks.values():
            assert entries[0]["hooks"][0]["command"] == "hostshape hook claude-code"


def test_the_hook_docs_stdin_example_runs_through_the_hook(tmp_path: Path) -> None:
    example = next(b for b in fenced(HOOK_DOC, "json") if '"hook_event_name"' in b)
    data = json.loads(example)
    assert {"session_id", "transcript_path", "cwd", "tool_name", "tool_input", "tool_response"} <= set(data)
    done = subprocess.run(
        [sys.executable, "-m", "hostshape", "hook", "claude-code"],
        input=example,
        text=True,
        capture_output=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stdout == ""  # a small result: left as it is
    data["tool_response"] = json.dumps(
        {"result": (ROOT / "hostshape/examples/payloads/gh_pulls_list.json").read_text(encoding="utf-8")}
    )
    done = subprocess.run(
        [sys.executable, "-m", "hostshape", "hook", "claude-code"],
        input=json.dumps(data),
        text=True,
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
        check=True,
    )
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PostToolUse" and '"_hostshape"' in str(out["updatedMCPToolOutput"])


def test_the_newcomers_shell_steps_name_things_that_exist() -> None:
    assert "pip install hostshape " not in README and "pip install hostshape\n" not in README
    for path in re.findall(r"\b(hostshape/examples/payloads/[\w.]+)", README):
        assert (ROOT / path).is_file(), path
    for script in re.findall(r"\bscripts/(\w+(?:\.py)?)", README):
        assert (ROOT / "scripts" / script).is_file(), script
    # what scripts/test installs, as the README says
    assert '_venv.sh" all test bench' in (ROOT / "scripts" / "test").read_text()
    assert "`scripts/test` installs `.[all]` plus the\n`test` and `bench` dependency groups" in README
    assert "OWNER" not in README  # no placeholder address: the setup says "in a clone"
    # Jupyter is named only with the extra that installs it; what the setup installs runs the notebooks too
    assert "nbconvert" not in README
    assert "pip install -e '.[all,notebooks]'` then `.venv/bin/jupyter lab notebooks/`" in README
    assert "`.venv/bin/python notebooks/build.py`" in README and (ROOT / "notebooks" / "build.py").is_file()
    for extra in ("[proxy]", "[fastmcp]", "[documents]", "[all-mcp2]", "[crewai]", "[strands]", "[notebooks]"):
        assert extra in README, extra


@pytest.mark.host
def test_the_testing_docs_example_runs_offline_with_the_public_scripted_model(tmp_path: Path) -> None:
    pytest.importorskip("agents")
    (block,) = fenced(TESTING_DOC, "python")
    path = tmp_path / "testing_example.py"
    path.write_text(block, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    done = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "2 results reached the model, each within the budget"


def test_the_readme_stays_a_guide() -> None:
    assert len(README.splitlines()) <= 300
    assert not re.search(r"\bissues? \d", README)  # no issue numbers in prose
    for link in re.findall(r"\]\((docs/[\w-]+\.md)\)", README):
        assert (ROOT / link).is_file(), link


def _block_using(adapter: str) -> str:
    return next(b for b in PYTHON if f"from hostshape.adapters.{adapter} import" in b)


def _read_second_page(received: list[str]) -> tuple[str, dict[str, str]] | None:
    """A scripted model's next call: after the first (cut) result, hostshape_read following its next; then answer."""
    if len(received) > 1:
        return None
    envelope = json.loads(received[0])["_hostshape"]
    assert envelope["truncated"] and "hostshape_read" in envelope["hint"]
    return "hostshape_read", {"handle": envelope["handle"], "cursor": envelope["next"]}


def _assert_second_page(first: str, page: str) -> None:
    shown = {r["number"] for r in as_records(json.loads(first)["items"])}
    paged = {r["number"] for r in as_records(json.loads(page)["items"])}
    assert paged and not shown & paged  # the page the way back gave is the next records, none seen twice


def page_pydantic_ai(g: dict[str, Any]) -> list[str]:
    """In the block's interpreter: its agent with another scripted model, a cut result and the page after it."""
    from hostshape.testing.pydantic_ai import scripted_model

    model = scripted_model(("list_issues", {}), _read_second_page)
    with g["agent"].override(model=model):
        assert g["agent"].run_sync("List the open issues").output == "done"
    return model.received


def page_openai_agents(g: dict[str, Any]) -> list[str]:
    """In the block's interpreter: its agent, server and runner kwargs with another scripted model."""
    import asyncio

    from agents import Runner

    from hostshape.testing.openai_agents import scripted_model

    g["server"].client_session_timeout_seconds = 120  # a 200 KB result on a loaded box
    model = scripted_model(("list_issues", {}), _read_second_page)

    async def main() -> None:
        async with g["server"]:
            agent = g["agent"].clone(model=model)
            result = await Runner.run(agent, "List the open issues", **g["shaper"].runner_kwargs())
            assert result.final_output == "done"

    asyncio.run(main())
    return model.received


def page_langchain(g: dict[str, Any]) -> list[str]:
    """In the block's interpreter: its client (with the interceptor) and read_tool in create_agent with another
    scripted model."""
    import asyncio

    from langchain.agents import create_agent

    from hostshape.testing.langchain import scripted_model

    model = scripted_model(("list_issues", {}), _read_second_page)

    async def main() -> None:
        agent = create_agent(model, [*await g["client"].get_tools(), g["read_tool"]])
        await agent.ainvoke({"messages": [("user", "List the open issues")]})

    asyncio.run(main())
    return model.received


@pytest.mark.host
@pytest.mark.parametrize("adapter", ["pydantic_ai", "openai_agents", "langchain"])
def test_the_block_pages_through_hostshape_read(adapter: str, run_block: Callable[[str], BlockRun]) -> None:
    """The block's own objects with another scripted model: a cut result, then hostshape_read following next gives
    the next records."""
    assert adapter in PAGED
    _printed, facts = run_block(_block_using(adapter))
    assert facts["then_error"] is None, facts["then_error"][-3000:]
    _assert_second_page(*facts["then"])


def test_scripts_readme_regenerates_marked_blocks(tmp_path: Path) -> None:
    """scripts/readme.py replaces what follows each <!-- name: command --> marker by the command's output: a fenced
    block keeps its fence and its "$ command" line, a table is replaced whole; --check reports stale blocks."""
    spec = importlib.util.spec_from_file_location("readme_script", ROOT / "scripts" / "readme.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    readme = tmp_path / "README.md"
    readme.write_text(
        "intro\n<!-- sample: echo new output -->\n```text\n$ tool --flag\nold output\n```\n\n"
        "<!-- table: printf '| a |\\n|---|\\n| 2 |\\n' -->\n| a |\n|---|\n| 1 |\n\nend\n"
    )
    assert script.main(["--readme", str(readme), "--check"]) == 1
    assert script.main(["--readme", str(readme)]) == 0
    assert readme.read_text() == (
        "intro\n<!-- sample: echo new output -->\n```text\n$ tool --flag\nnew output\n```\n\n"
        "<!-- table: printf '| a |\\n|---|\\n| 2 |\\n' -->\n| a |\n|---|\n| 2 |\n\nend\n"
    )
    assert script.main(["--readme", str(readme), "--check"]) == 0
    # the README's own measure sample is one of these blocks
    names = [name for name, *_ in script.blocks(README.splitlines())]
    assert {"corpus-table", "demo-table", "envelope-sample", "install-table"} <= set(names)
    assert "measure-sample" in [name for name, *_ in script.blocks(POLICY_DOC.splitlines())]

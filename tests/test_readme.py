"""The README as a newcomer reads it: every ```python block is a complete program that runs as written (imports
included), every framework block gives the model the way back (hostshape_read), and the JSON / TOML / shell pieces
are what the code accepts. docs/claude-code-hook.md's stdin example runs through the real hook command.

Without a provider key the framework blocks build their agent and stop; for OpenAI Agents, LangChain and Pydantic
AI the tests then run the block's own objects with a scripted model in place of the provider, through a cut result
and a hostshape_read call following next (Claude and ADK: tests/test_*_adapter.py and the notebooks do that)."""

from __future__ import annotations

import importlib.util
import json
import re
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hostshape import Policy
from hostshape.adapters.registry import HOSTS, hosts
from hostshape.output.columns import as_records

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


@pytest.mark.parametrize("index", range(len(PYTHON)))
def test_each_python_block_runs_as_written(index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key in KEYS:  # without a provider key, framework blocks build their agent and stop there
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    path = tmp_path / f"readme_block_{index}.py"
    path.write_text(PYTHON[index], encoding="utf-8")
    block = PYTHON[index]
    adapter = re.search(r"from hostshape\.adapters\.(\w+) import", block)
    if adapter:
        pytest.importorskip(next(h.framework for h in HOSTS if h.key == adapter.group(1)))
        if adapter.group(1) == "fastmcp":
            try:
                from fastmcp import FastMCP  # noqa: F401 - fastmcp-slim (a Pydantic AI dependency) has no server
            except ImportError as exc:
                pytest.skip(f"no FastMCP server: {exc}")
    # a fresh namespace (a missing import is a NameError), not named __main__ (a server block would start serving)
    g = runpy.run_path(str(path), run_name="readme_block")
    if adapter:  # every documented one-liner gives the model the way back
        assert "hostshape_read" in _read_tool_names(g), f"{adapter.group(1)}: no hostshape_read registered"
    if adapter and adapter.group(1) != "fastmcp":  # host blocks: install() and the example server
        assert "install(" in block
        assert "hostshape.examples.mcp_server" in block and "sys.executable" in block


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
    env = {k: v for k, v in __import__("os").environ.items() if k not in KEYS}
    done = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("tokens reached the model")


def test_the_readme_stays_a_guide() -> None:
    assert len(README.splitlines()) <= 300
    assert not re.search(r"\bissues? \d", README)  # no issue numbers in prose
    for link in re.findall(r"\]\((docs/[\w-]+\.md)\)", README):
        assert (ROOT / link).is_file(), link


def _block_using(adapter: str) -> str:
    return next(b for b in PYTHON if f"from hostshape.adapters.{adapter} import" in b)


def _follow_next(first: str) -> dict[str, str]:
    env = json.loads(first)["_hostshape"]
    assert env["truncated"] and "hostshape_read" in env["hint"]
    return {"handle": env["handle"], "cursor": env["next"]}


def _assert_second_page(first: str, page: str) -> None:
    shown = {r["number"] for r in as_records(json.loads(first)["items"])}
    paged = {r["number"] for r in as_records(json.loads(page)["items"])}
    assert paged and not shown & paged  # the page the way back gave is the next records, none seen twice


@pytest.mark.host
def test_the_pydantic_ai_block_pages_through_hostshape_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The block's own agent, run with a scripted model in place of the provider (Pydantic AI's FunctionModel): a cut
    result, then hostshape_read following next."""
    pytest.importorskip("pydantic_ai")
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel

    for key in KEYS:
        monkeypatch.delenv(key, raising=False)
    path = tmp_path / "pydantic_ai_block.py"
    path.write_text(_block_using("pydantic_ai"), encoding="utf-8")
    g = runpy.run_path(str(path))
    g["corpus"].client._init_timeout = 60  # as hostshape.testing.pydantic_ai does: 5 s is short on a loaded box
    texts: list[str] = []

    def model(messages: list[Any], info: Any) -> ModelResponse:
        texts[:] = [p.model_response_str() for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
        if not texts:
            return ModelResponse(parts=[ToolCallPart("list_issues", {})])
        if len(texts) == 1:
            return ModelResponse(parts=[ToolCallPart("hostshape_read", _follow_next(texts[0]))])
        return ModelResponse(parts=[TextPart("done")])

    with g["agent"].override(model=FunctionModel(model)):
        assert g["agent"].run_sync("List the open issues").output == "done"
    _assert_second_page(*texts)


@pytest.mark.host
def test_the_openai_agents_block_pages_through_hostshape_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The block's own agent, server and runner kwargs, with a scripted Model in place of the provider."""
    pytest.importorskip("agents")
    import asyncio

    from agents import Runner

    from hostshape.testing.openai_agents import scripted_model

    for key in KEYS:
        monkeypatch.delenv(key, raising=False)
    path = tmp_path / "openai_agents_block.py"
    path.write_text(_block_using("openai_agents"), encoding="utf-8")
    g = runpy.run_path(str(path))
    g["server"].client_session_timeout_seconds = 120  # a 200 KB result on a loaded box; the default is 5 s
    seen: list[str] = []

    def step(call: Any) -> Any:
        if call.index == 0:
            return [("list_issues", {})]
        if call.index == 1:
            seen.append(call.output_of("list_issues") or "")
            return [("hostshape_read", _follow_next(seen[0]))]
        seen.append(call.output_of("hostshape_read") or "")
        return "done"

    async def main() -> str:
        async with g["server"]:
            agent = g["agent"].clone(model=scripted_model([step] * 3, "done"))
            result = await Runner.run(agent, "List the open issues", **g["shaper"].runner_kwargs())
            return str(result.final_output)

    assert asyncio.run(main()) == "done"
    _assert_second_page(*seen)


@pytest.mark.host
def test_the_langchain_block_pages_through_hostshape_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The block's own client (with the interceptor) and read_tool, in create_agent with a scripted chat model in
    place of the provider's."""
    pytest.importorskip("langchain_mcp_adapters")
    import asyncio

    from hostshape.testing.langchain import run_agent

    for key in KEYS:
        monkeypatch.delenv(key, raising=False)
    path = tmp_path / "langchain_block.py"
    path.write_text(_block_using("langchain"), encoding="utf-8")
    g = runpy.run_path(str(path))

    asked: list[str] = []

    def follow_up(text: str) -> tuple[str, dict[str, Any]] | None:
        """Given the last tool result: follow the first one's next once, then finish."""
        if asked:
            return None
        asked.append(text)
        return "hostshape_read", _follow_next(text)

    async def main() -> list[str]:
        tools = [*await g["client"].get_tools(), g["read_tool"]]
        return (await run_agent(tools, "list_issues", follow_up=follow_up)).extra["received_all"]

    first, page = asyncio.run(main())[:2]
    _assert_second_page(first, page)


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

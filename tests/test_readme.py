"""The README as a newcomer reads it: every ```python block is a complete program that runs as written (imports
included), every framework block gives the model the way back (hostshape_read), and the JSON / TOML / shell pieces
are what the code accepts. docs/claude-code-hook.md's stdin example runs through the real hook command."""

from __future__ import annotations

import json
import re
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hostshape import Policy

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
HOOK_DOC = (ROOT / "docs" / "claude-code-hook.md").read_text(encoding="utf-8")
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY")


def fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.DOTALL | re.MULTILINE)


PYTHON = fenced(README, "python")


def _read_tool_names(g: dict[str, Any]) -> set[str]:
    """The retrieval tools a snippet's agent offers the model, by host."""
    names: set[str] = set()
    if "options" in g:  # Claude Agent SDK
        names |= {t.rsplit("__", 1)[-1] for t in g["options"].allowed_tools}
        assert "hostshape" in g["options"].mcp_servers
    if "agent" in g and hasattr(g["agent"], "tools") and isinstance(g["agent"].tools, list):  # OpenAI Agents, ADK
        names |= {getattr(t, "name", "") for t in g["agent"].tools}
    if "read_tool" in g:  # LangChain, ADK
        names.add(g["read_tool"].name)
    for toolset in g.get("toolsets", []):  # Pydantic AI
        names |= set(getattr(toolset, "tools", None) or ())
    return names


def test_the_readme_has_the_python_blocks_it_promises() -> None:
    adapters = {m for block in PYTHON for m in re.findall(r"from hostshape\.adapters\.(\w+) import", block)}
    assert adapters == {"claude", "openai_agents", "langchain", "pydantic_ai", "adk"}


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
        pytest.importorskip({"claude": "claude_agent_sdk", "openai_agents": "agents",
                             "langchain": "langchain_mcp_adapters", "pydantic_ai": "pydantic_ai",
                             "adk": "google.adk"}[adapter.group(1)])
    g = runpy.run_path(str(path), run_name="__main__")  # a fresh namespace: a missing import is a NameError
    if adapter:  # every documented one-liner gives the model the way back
        assert "install(" in block
        assert "hostshape_read" in _read_tool_names(g), f"{adapter.group(1)}: no hostshape_read registered"
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
    done = subprocess.run([sys.executable, "-m", "hostshape", "hook", "claude-code"], input=example, text=True,
                          capture_output=True, cwd=tmp_path, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout == ""  # a small result: left as it is
    data["tool_response"] = json.dumps({"result": (ROOT / "hostshape/examples/payloads/gh_pulls_list.json")
                                        .read_text(encoding="utf-8")})
    done = subprocess.run([sys.executable, "-m", "hostshape", "hook", "claude-code"], input=json.dumps(data),
                          text=True, capture_output=True, cwd=tmp_path, timeout=120, check=True)
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PostToolUse" and '"_hostshape"' in str(out["updatedMCPToolOutput"])


def test_the_newcomers_shell_steps_name_things_that_exist() -> None:
    assert "pip install hostshape " not in README and "pip install hostshape\n" not in README
    for path in re.findall(r"\b(hostshape/examples/payloads/[\w.]+)", README):
        assert (ROOT / path).is_file(), path
    for script in re.findall(r"\bscripts/(\w+(?:\.py)?)", README):
        assert (ROOT / "scripts" / script).is_file(), script
    # what scripts/test installs, as the README says
    assert "_venv.sh\" all test bench" in (ROOT / "scripts" / "test").read_text()
    assert "`scripts/test` installs `.[all]` plus the\n`test` and `bench` dependency groups" in README
    assert "git+https://github.com/OWNER/hostshape" in README and "`OWNER` is a placeholder" in README

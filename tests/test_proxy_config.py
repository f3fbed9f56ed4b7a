"""``hostshape proxy-config``: wrap a host's MCP configuration behind the proxy and undo it, on real-format files."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from hostshape.cli.mcp_config import UNWRAP_BACKUP, WRAP_BACKUP, main, unwrap_config, wrap_config

CONFIGS = Path(__file__).with_name("mcp_configs")
FILES = [
    "claude_desktop_config.json",
    "cursor_mcp.json",
    "vscode_mcp.json",
    "claude_code_mcp_crlf.json",
    "claude_code_user.json",
]
LAUNCHER = ["/opt/hostshape/bin/hostshape"]


def servers_of(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for key in ("mcpServers", "servers"):
        out.update(doc.get(key, {}))
    for path, project in doc.get("projects", {}).items():
        out.update({f"{path}:{k}": v for k, v in project.get("mcpServers", {}).items()})
    return out


def copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copyfile(CONFIGS / name, target)
    return target


@pytest.mark.parametrize("name", FILES)
def test_wrap_then_unwrap_gives_back_the_same_bytes(tmp_path: Path, name: str) -> None:
    path = copy(tmp_path, name)
    original = path.read_bytes()
    assert main(["wrap", str(path), "--budget", "3000"]) == 0
    wrapped = path.read_bytes()
    assert wrapped != original
    assert (tmp_path / (name + WRAP_BACKUP)).read_bytes() == original
    assert main(["wrap", str(path)]) == 0 and path.read_bytes() == wrapped  # already wrapped: nothing to do
    assert main(["unwrap", str(path)]) == 0
    assert path.read_bytes() == original
    assert (tmp_path / (name + UNWRAP_BACKUP)).read_bytes() == wrapped


@pytest.mark.parametrize("name", FILES)
def test_wrap_keeps_every_entry_and_key(name: str) -> None:
    text = (CONFIGS / name).read_bytes().decode("utf-8")
    before = json.loads(text)
    change = wrap_config(text, options=["--budget", "3000"], launcher=LAUNCHER)
    after = json.loads(change.text)
    old, new = servers_of(before), servers_of(after)
    assert list(new) == list(old)  # no entry lost, order kept
    for server, entry in old.items():
        wrapped = new[server]
        assert {k: v for k, v in wrapped.items() if k not in ("command", "args")} == {
            k: v for k, v in entry.items() if k not in ("command", "args")
        }
        if "command" in entry:
            assert server in change.changed
            assert [wrapped["command"], *wrapped["args"]] == [
                *LAUNCHER,
                "proxy",
                "--budget",
                "3000",
                # the entry's own name (Claude Code project entries are labelled path:name)
                "--server=" + server.rpartition(":")[2],
                "--",
                entry["command"],
                *entry.get("args", []),
            ]
        else:  # a URL server is left alone, and says so
            assert wrapped == entry and server in change.skipped
    strip = ("mcpServers", "servers", "projects")
    assert {k: v for k, v in after.items() if k not in strip} == {k: v for k, v in before.items() if k not in strip}
    assert change.text.endswith("\n") == text.endswith("\n")
    assert ("\r\n" in change.text) == ("\r\n" in text)


@pytest.mark.parametrize("name", ["claude_desktop_config.json", "claude_code_mcp_crlf.json"])
def test_unwrap_without_the_backup_restores_a_canonical_file_exactly(name: str) -> None:
    text = (CONFIGS / name).read_bytes().decode("utf-8")
    wrapped = wrap_config(text, launcher=LAUNCHER).text
    assert unwrap_config(wrapped).text.encode() == (CONFIGS / name).read_bytes()


def test_only_named_servers_are_wrapped_and_unknown_names_are_refused(tmp_path: Path) -> None:
    path = copy(tmp_path, "claude_desktop_config.json")
    assert main(["wrap", str(path), "--server", "github"]) == 0
    servers = json.loads(path.read_text())["mcpServers"]
    assert servers["github"]["args"][0] == "proxy" and servers["filesystem"]["command"] == "npx"
    before = path.read_bytes()
    assert main(["wrap", str(path), "--server", "nope"]) == 2
    assert path.read_bytes() == before
    assert main(["unwrap", str(path), "--server", "github"]) == 0
    assert path.read_bytes() == (CONFIGS / "claude_desktop_config.json").read_bytes()


def test_a_file_with_comments_is_refused_and_left_untouched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy(tmp_path, "vscode_settings.jsonc")
    assert main(["wrap", str(path)]) == 2
    assert path.read_bytes() == (CONFIGS / "vscode_settings.jsonc").read_bytes()
    assert "comments" in capsys.readouterr().err
    assert not (tmp_path / ("vscode_settings.jsonc" + WRAP_BACKUP)).exists()


async def test_a_wrapped_entry_starts_the_proxy_in_front_of_the_server(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    config = {"mcpServers": {"corpus": {"command": sys.executable, "args": ["-m", "hostshape.examples.mcp_server"]}}}
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config, indent=2) + "\n")
    assert main(["wrap", str(path)]) == 0
    entry = json.loads(path.read_text())["mcpServers"]["corpus"]
    # this environment, as a host passes its own (the SDK's default keeps only HOME, PATH and a few)
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=dict(os.environ))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = [t.name for t in (await session.list_tools()).tools]
    assert "list_pull_requests" in names and names[-1] == "hostshape_read"

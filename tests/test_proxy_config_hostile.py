"""``hostshape proxy-config`` on hostile files (issue 31): it never writes where the user did not point it, never loses
or changes a value, and says why when it refuses.

Each test runs the real ``hostshape proxy-config`` command (a subprocess of this checkout) on real files in a temporary
folder; the property test drives the same entry point in-process over arbitrary configs, encodings and links.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hostshape
from hostshape.cli import config_json
from hostshape.cli.config_json import Number
from hostshape.cli.mcp_config import UNWRAP_BACKUP, WRAP_BACKUP, main
from hostshape.proxy.cli import _parser as proxy_parser

REPO_ROOT = Path(hostshape.__file__).resolve().parents[1]


def proxy_config(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(
        [sys.executable, "-m", "hostshape.cli", "proxy-config", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
    )


def config(**servers: dict[str, Any]) -> str:
    return json.dumps({"mcpServers": servers}, indent=2) + "\n"


SERVER = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}


def strict_json(text: str) -> Any:
    """``text`` as JSON, refusing what Python's json accepts beyond the standard (NaN, Infinity)."""

    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def wrapped_argv(entry: dict[str, Any]) -> Any:
    """What the real ``hostshape proxy`` parser makes of a wrapped entry."""
    return proxy_parser().parse_args(entry["args"][1:])


# -- write primitives ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("action", ["wrap", "unwrap"])
def test_a_planted_backup_link_is_never_written_through(tmp_path: Path, action: str) -> None:
    home, repo = tmp_path / "home", tmp_path / "repo"
    home.mkdir()
    repo.mkdir()
    bashrc = home / ".bashrc"
    bashrc.write_text("echo user's own shell setup\n")
    path = repo / ".mcp.json"
    path.write_text(config(github=SERVER))
    if action == "unwrap":
        assert proxy_config("wrap", path, cwd=repo).returncode == 0
        (repo / (".mcp.json" + WRAP_BACKUP)).unlink()
    before = path.read_bytes()
    suffix = WRAP_BACKUP if action == "wrap" else UNWRAP_BACKUP
    (repo / (".mcp.json" + suffix)).symlink_to(bashrc)

    done = proxy_config(action, ".mcp.json", cwd=repo)

    assert done.returncode == 2
    assert "symbolic link" in done.stderr and "Traceback" not in done.stderr
    assert bashrc.read_text() == "echo user's own shell setup\n"
    assert path.read_bytes() == before


def test_unwrap_never_reads_through_a_planted_wrap_backup_link(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"token": "SECRET"}')
    path = tmp_path / "mcp.json"
    path.write_text(config(github=SERVER))
    assert proxy_config("wrap", path, cwd=tmp_path).returncode == 0
    (tmp_path / ("mcp.json" + WRAP_BACKUP)).unlink()
    (tmp_path / ("mcp.json" + WRAP_BACKUP)).symlink_to(secret)
    wrapped = path.read_bytes()

    done = proxy_config("unwrap", path, cwd=tmp_path)

    assert done.returncode == 2 and "symbolic link" in done.stderr
    assert path.read_bytes() == wrapped and "SECRET" not in done.stderr + done.stdout


def test_a_linked_config_file_is_updated_at_its_target_and_stays_a_link(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "claude.json"
    target.write_text(config(github=SERVER))
    original = target.read_bytes()
    link = tmp_path / ".claude.json"
    link.symlink_to(target)

    done = proxy_config("wrap", link, cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and link.resolve() == target.resolve()
    entry = json.loads(target.read_text())["mcpServers"]["github"]
    assert wrapped_argv(entry).command == ["--", "npx", "-y", "@modelcontextprotocol/server-github"]
    assert str(target) in done.stderr  # says which file it wrote
    assert proxy_config("unwrap", link, cwd=tmp_path).returncode == 0
    assert link.is_symlink() and target.read_bytes() == original


# -- data kept ----------------------------------------------------------------------------------------------------
def test_a_repeated_key_is_refused_and_nothing_is_lost(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    text = '{"mcpServers": {"a": {"command": "a-server"}}, "mcpServers": {"b": {"command": "b-server"}}}\n'
    path.write_text(text)

    done = proxy_config("wrap", path, cwd=tmp_path)

    assert done.returncode == 2
    assert "'mcpServers' appears twice" in done.stderr and "Traceback" not in done.stderr
    assert path.read_text() == text and not (tmp_path / ("mcp.json" + WRAP_BACKUP)).exists()


def test_a_file_that_is_not_utf8_gets_a_clear_error_and_no_traceback(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    data = b'{"mcpServers": {"a": {"command": "caf\xe9"}}}\n'  # Latin-1
    path.write_bytes(data)

    done = proxy_config("wrap", path, cwd=tmp_path)

    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "not UTF-8" in done.stderr and "0xe9" in done.stderr
    assert path.read_bytes() == data


@pytest.mark.parametrize("codec,bom", [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b""), ("utf-8", b"\xef\xbb\xbf")])
def test_a_utf16_or_bom_file_is_rewritten_in_its_own_encoding(tmp_path: Path, codec: str, bom: bytes) -> None:
    path = tmp_path / "mcp.json"
    original = bom + config(caf=SERVER).replace("caf", "café").encode(codec)
    path.write_bytes(original)

    assert proxy_config("wrap", path, cwd=tmp_path).returncode == 0
    data = path.read_bytes()
    assert data.startswith(bom)
    assert "proxy" in json.loads(data[len(bom) :].decode(codec))["mcpServers"]["café"]["args"]
    assert proxy_config("unwrap", path, cwd=tmp_path).returncode == 0
    assert path.read_bytes() == original


ODD_VALUES = '[true, null, {"k": 1}, [2, "x"], 12345678901234567.89, 1e400, -0, 1.0E5, "plain"]'


def test_non_string_args_and_large_numbers_round_trip_as_json(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    text = (
        '{"mcpServers": {"odd": {"command": "srv", "args": ' + ODD_VALUES + ', "timeout": 123456789012345678901234}},'
        ' "limit": 1e400, "ratio": 0.1000000000000000055511151231257827}\n'
    )
    path.write_text(text)

    assert proxy_config("wrap", path, cwd=tmp_path).returncode == 0
    wrapped = path.read_text()
    doc = strict_json(wrapped)  # valid JSON: no Infinity, no Python reprs
    assert "True" not in wrapped and "None" not in wrapped and "{'k'" not in wrapped
    entry = config_json.load(wrapped)["mcpServers"]["odd"]
    assert entry["args"][entry["args"].index("--") + 2 :] == config_json.load(ODD_VALUES)
    for literal in ("12345678901234567.89", "1e400", "1.0E5", "123456789012345678901234", "0.1000000000000000055511"):
        assert literal in wrapped
    assert doc["mcpServers"]["odd"]["command"].endswith(("hostshape", "python", sys.executable))

    (tmp_path / ("mcp.json" + WRAP_BACKUP)).unlink()  # without the backup, unwrap rebuilds the same values
    assert proxy_config("unwrap", path, cwd=tmp_path).returncode == 0
    assert config_json.load(path.read_text()) == config_json.load(text)


def test_servers_named_like_options_are_wrapped_and_unwrapped(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    text = config(**{"-dev": SERVER, "--": {"command": "other", "args": ["--flag"]}, "ok": SERVER})
    path.write_text(text)

    done = proxy_config("wrap", path, "--server", "-dev", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    servers = json.loads(path.read_text())["mcpServers"]
    parsed = wrapped_argv(servers["-dev"])
    assert parsed.server_name == "-dev" and parsed.command == ["--", "npx", "-y", "@modelcontextprotocol/server-github"]
    assert servers["--"] == {"command": "other", "args": ["--flag"]}

    assert proxy_config("wrap", path, cwd=tmp_path).returncode == 0
    servers = json.loads(path.read_text())["mcpServers"]
    assert servers["--"]["args"][1:3] == ["--server=--", "--"]
    assert wrapped_argv(servers["--"]).command == ["--", "other", "--flag"]

    for backup in tmp_path.glob("mcp.json.before-*"):
        backup.unlink()  # unwrap from the wrapped entries alone
    assert proxy_config("unwrap", path, cwd=tmp_path).returncode == 0
    assert json.loads(path.read_text()) == json.loads(text)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give the file away")
@pytest.mark.parametrize("action", ["wrap", "unwrap"])
def test_run_as_root_the_file_keeps_its_owner_and_mode(tmp_path: Path, action: str) -> None:
    user = 4321
    path = tmp_path / "mcp.json"
    path.write_text(config(github=SERVER))
    if action == "unwrap":
        assert proxy_config("wrap", path, cwd=tmp_path).returncode == 0
    os.chown(path, user, user)
    path.chmod(0o644)

    assert proxy_config(action, path, cwd=tmp_path).returncode == 0

    for written in (path, tmp_path / ("mcp.json" + (WRAP_BACKUP if action == "wrap" else UNWRAP_BACKUP))):
        st_ = written.stat()
        assert (st_.st_uid, st_.st_gid, stat.S_IMODE(st_.st_mode)) == (user, user, 0o644), written
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# -- the spill folder a policy names --------------------------------------------------------------------------------
def test_a_spill_dir_naming_a_project_folder_is_left_as_it_was(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("my project\n")
    project.chmod(0o755)
    policy = tmp_path / "policy.toml"
    policy.write_text(f'budget = 400\n[spill]\ndir = "{project.as_posix()}"\n')
    result = tmp_path / "result.json"
    result.write_text(json.dumps([{"id": i, "title": f"record {i} " * 5} for i in range(300)]))
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}

    shaped = subprocess.run(
        [sys.executable, "-m", "hostshape.cli", "shape", str(result), "--policy", str(policy)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )

    assert shaped.returncode == 0, shaped.stderr
    handle = json.loads(shaped.stdout)["_hostshape"]["handle"]
    assert stat.S_IMODE(project.stat().st_mode) == 0o755
    assert sorted(p.name for p in project.iterdir()) == ["README.md", "hostshape-spill"]
    store = project / "hostshape-spill"
    assert stat.S_IMODE(store.stat().st_mode) == 0o700 and (store / ".secret").exists()
    assert any(p.name.startswith(handle) for p in store.iterdir())


# -- property: wrap then unwrap on arbitrary configs ------------------------------------------------------------------
NAME = st.one_of(st.sampled_from(["-dev", "--", "", "proxy", "a=b", "--server"]), st.text(max_size=8))
NUMBER = st.from_regex(r"\A-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,4})?\Z").map(Number)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBER, st.text(max_size=12))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)
COMMAND = st.text(min_size=1, max_size=10).filter(lambda c: "hostshape" not in c)
ENTRY = st.fixed_dictionaries(
    {"command": COMMAND},
    optional={"args": st.lists(VALUES, max_size=4), "env": st.dictionaries(st.text(max_size=5), st.text(max_size=5))},
)
CONFIG = st.fixed_dictionaries(
    {"mcpServers": st.dictionaries(NAME, ENTRY, min_size=1, max_size=4)},
    optional={"other": VALUES, "z": VALUES},
)
ENCODINGS = [
    config_json.Encoding("utf-8"),
    config_json.Encoding("utf-8", b"\xef\xbb\xbf"),
    config_json.Encoding("utf-16-le", b"\xff\xfe"),
    config_json.Encoding("utf-16-be"),
    config_json.Encoding("utf-32-le", b"\xff\xfe\x00\x00"),
]
LAYOUTS = ["{\n  \n}\n", "{\n\t\n}", "{\r\n    \r\n}\r\n"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=CONFIG, encoding=st.sampled_from(ENCODINGS), layout=st.sampled_from(LAYOUTS), linked=st.booleans())
def test_wrap_then_unwrap_round_trips_any_config(
    doc: dict[str, Any], encoding: config_json.Encoding, layout: str, linked: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        original = encoding.encode(config_json.dump(doc, layout))
        real = folder / "real" / "mcp.json"
        real.parent.mkdir()
        real.write_bytes(original)
        path = folder / "mcp.json"
        if linked:
            path.symlink_to(real)
        else:
            real.rename(path)
            real = path

        assert main(["wrap", str(path)]) == 0
        assert path.is_symlink() == linked
        wrapped_text, _ = config_json.decode(real.read_bytes())
        wrapped = config_json.load(wrapped_text)
        strict_json(wrapped_text)
        assert {k: v for k, v in wrapped.items() if k != "mcpServers"} == {
            k: v for k, v in doc.items() if k != "mcpServers"
        }
        for name, entry in doc["mcpServers"].items():
            new = wrapped["mcpServers"][name]
            assert new["args"][new["args"].index("proxy") + 1 :][:2] == [f"--server={name}", "--"]
            if name != "--":  # argparse reads a value "--" as no value (hostshape proxy's parser)
                assert wrapped_argv(new).server_name == name
            assert new["args"][new["args"].index("--") + 1 :] == [entry["command"], *entry.get("args", [])]
            assert {k: v for k, v in new.items() if k not in ("command", "args")} == {
                k: v for k, v in entry.items() if k not in ("command", "args")
            }

        assert main(["unwrap", str(path)]) == 0
        assert real.read_bytes() == original

"""The built distribution, as a user installs it: scripts/build makes a wheel and an sdist; the wheel installs in a
fresh virtual environment (core only, no framework) and `hostshape shape` / `hostshape read` run from it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import hostshape

ROOT = Path(__file__).resolve().parents[1]


def _not_sources(folder: str, names: list[str]) -> set[str]:
    """What a checkout holds besides the sources (.gitignore, git's files, the tools' caches) for shutil.copytree:
    nothing the build reads, and the caches are rewritten while CI's lint runs beside the tests."""
    ignored = {n for n in names if n.startswith(".venv") or n.endswith((".egg-info", "_cache"))}
    ignored |= {".git", "__pycache__", ".hypothesis", ".ipynb_checkpoints"} & set(names)
    if Path(folder) == ROOT:
        ignored |= {"build", "dist"} & set(names)
    return ignored


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """scripts/build run in a copy of the checkout: the build rewrites hostshape.egg-info where it runs, which the
    editable installs scripts/test makes meanwhile (the other environments) write in the checkout too."""
    out, clone = tmp_path_factory.mktemp("dist"), tmp_path_factory.mktemp("clone") / "hostshape"
    shutil.copytree(ROOT, clone, ignore=_not_sources)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(
        ["bash", str(clone / "scripts" / "build"), str(out)],
        cwd=clone,
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    return out


def test_the_wheel_carries_the_metadata_and_data_users_need(dist: Path) -> None:
    wheel = next(dist.glob("hostshape-*.whl"))
    assert next(dist.glob("hostshape-*.tar.gz"))
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        meta_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(zf.read(meta_name).decode())
    assert {
        "hostshape/py.typed",
        "hostshape/__main__.py",
        "hostshape/examples/mcp_server.py",
        "hostshape/examples/payloads/gh_pulls_list.json",
    } <= names
    assert meta["Version"] == hostshape.__version__
    classifiers = meta.get_all("Classifier")
    assert "Typing :: Typed" in classifiers and "Programming Language :: Python :: 3.11" in classifiers
    assert meta["Keywords"]
    assert not any("OWNER" in url for url in meta.get_all("Project-URL") or [])  # no placeholder address
    extras = set(meta.get_all("Provides-Extra"))
    assert {"claude", "openai", "langchain", "pydantic-ai", "adk", "mcp", "otel", "all", "notebooks"} <= extras
    assert {"strands", "llamaindex", "agent-framework", "agno", "crewai", "all-mcp2"} <= extras
    assert not {"test", "bench"} & extras  # development dependency groups, not user extras
    requires = meta.get_all("Requires-Dist")
    assert any(r.startswith("hostshape[") and "otel" in r and 'extra == "all"' in r for r in requires)


def test_the_wheel_installs_in_a_fresh_venv_and_the_cli_runs(dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    # a fresh venv without its own copy of pip (ensurepip takes seconds): this interpreter's pip installs into it
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    wheel = next(dist.glob("hostshape-*.whl"))
    # the user's environment: no policy, and no PYTHONPATH that would put this checkout before the installed copy
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("HOSTSHAPE_POLICY", None)
    env.pop("PYTHONPATH", None)
    # the dependencies come from the pip cache (or the index); hostshape itself only from the wheel
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--find-links",
            str(dist),
            str(wheel),
        ],
        check=True,
        timeout=600,
        capture_output=True,
        env=env,
    )
    cli = str(venv / "bin" / "hostshape")

    def run(*args: str) -> str:
        done = subprocess.run(
            [cli, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert run("--version").strip() == f"hostshape {hostshape.__version__}"
    payload = subprocess.run(
        [str(python), "-c", "from hostshape.examples import payload_path; print(payload_path('gh_issues_list.json'))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=env,
    ).stdout.strip()
    assert str(venv) in payload  # the installed copy, not this checkout
    shaped = json.loads(run("shape", payload, "--budget", "1000"))
    env_ = shaped["_hostshape"]
    assert env_["truncated"] and "hostshape read HANDLE --cursor NEXT" in env_["hint"]
    page = json.loads(run("read", env_["handle"], "--cursor", env_["next"], "--budget", "1000"))
    assert page["items"] and page["_hostshape"]["handle"] == env_["handle"]
    frameworks = subprocess.run(
        [
            str(python),
            "-c",
            (
                "import importlib.util as u; print([m for m in ('mcp', 'agents', 'claude_agent_sdk', "
                "'langchain', 'pydantic_ai', 'google.adk') if u.find_spec(m.split('.')[0])])"
            ),
        ],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.strip()
    assert frameworks == "[]"  # the core installs no framework

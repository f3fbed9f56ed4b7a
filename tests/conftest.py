"""Every test writes spilled results under its own temporary folder, never in the user's cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from hostshape import Policy


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def policy(tmp_path: Path) -> Policy:
    """The default budget, spilling into this test's own folder (test files may override it)."""
    return Policy(budget=4000, spill_dir=tmp_path / "spill")

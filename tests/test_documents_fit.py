"""Every document of the documents bench (bench/documents.toml) fits every budget, from a tight one up: one test
over the whole corpus (each round's documents join it by being listed there)."""

from __future__ import annotations

from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from tests.answers import assert_document_fits

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [d["file"] for d in tomllib.loads((ROOT / "bench" / "documents.toml").read_text())["document"]]


@pytest.mark.parametrize("budget", [300, 2000, 8000])
@pytest.mark.parametrize("file", DOCUMENTS, ids=[Path(f).name for f in DOCUMENTS])
def test_every_document_fits_the_budget(file: str, budget: int, tmp_path: Path) -> None:
    assert_document_fits(ROOT / file, budget, tmp_path)

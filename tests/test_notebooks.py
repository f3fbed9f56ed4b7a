"""The notebooks are committed with their outputs, and those outputs are what the code produces now.

Each notebook is executed again with nbclient on this interpreter (as ``notebooks/build.py`` does) and every code
cell's text outputs (streams, text/plain, errors; images skipped) are compared with the committed ones after
normalising whitespace. The committed sources must also be the ones ``notebooks/build.py`` writes.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
REBUILD = "run `python notebooks/build.py` (from the repository root, in the project's .venv) and commit the notebooks"


def _build_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hostshape_notebooks_build", NOTEBOOKS / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _build_module()


def test_every_notebook_is_built_by_build_py() -> None:
    committed = sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))
    assert committed == sorted(build.NOTEBOOKS), f"notebooks/ and build.py disagree: {REBUILD}"


@pytest.mark.host
@pytest.mark.parametrize("name", list(build.NOTEBOOKS))
def test_committed_outputs_match_what_the_code_produces_now(name: str) -> None:
    if name in build.REQUIRES:
        pytest.importorskip(build.REQUIRES[name])  # its framework lives in another environment (scripts/test)
    path = NOTEBOOKS / f"{name}.ipynb"
    assert path.exists(), f"{path.name} is missing: {REBUILD}"
    committed = nbformat.read(path, as_version=4)
    fresh = build.notebook(name)
    assert [c.source for c in committed.cells] == [c.source for c in fresh.cells], (
        f"{path.name}: its cells differ from notebooks/build.py: {REBUILD}"
    )

    build.execute(fresh)

    code_cells = [c for c in fresh.cells if c.cell_type == "code"]
    for cell, want, got in zip(code_cells, build.text_outputs(committed), build.text_outputs(fresh), strict=True):
        assert got == want, (
            f"{path.name}: outputs of the cell starting {cell.source.splitlines()[0]!r} changed; {REBUILD}.\n"
            f"committed: {want}\nnow:       {got}"
        )
    assert not any(out.output_type == "error" for c in code_cells for out in c.outputs)


FRAMEWORK_NOTEBOOKS = [name for name in build.NOTEBOOKS if name != "00_core"]


@pytest.mark.parametrize("name", FRAMEWORK_NOTEBOOKS)
def test_each_framework_notebook_charts_without_and_with_and_walks_the_way_back(name: str) -> None:
    """A bar chart of without vs with, then a cut result in the host and a hostshape_read call following its next
    (checked on the committed outputs, which the test above proves are what the code produces)."""
    committed = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    outputs = [out for cell in committed.cells if cell.cell_type == "code" for out in cell.outputs]
    assert any("image/png" in out.get("data", {}) for out in outputs), f"{name}: no chart"
    text = "\n".join(t for cell in build.text_outputs(committed) for t in cell)
    assert "the model got without hostshape" in text and "the model got with hostshape" in text
    assert "truncated=True" in text, f"{name}: the way-back payload was not cut"
    assert "called " in text and "hostshape_read(handle=…, cursor=<next of the first result>)" in text
    assert "records it had already seen: none" in text

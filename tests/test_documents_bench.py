"""The document corpus and its bench (bench/documents.py, issue 26).

- The corpus keeps its promises: at least 20 real documents of at least 8 kinds, each with provenance, landmarks
  and 4-6 questions whose answers are in the document.
- The bench runs end to end on three documents at one budget (smoke).
- DONE-WHEN THRESHOLD (issue 26): hostshape's first answer names >= 90% of the landmarks on average and >= 70% on
  every document at 4,000 tokens. It is expected to fail until the document engine (``hostshape.documents``) is
  merged, so it is marked xfail (not strict) while that package is missing; with the engine merged it must pass.
"""

from __future__ import annotations

import html
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HAS_ENGINE = importlib.util.find_spec("hostshape.documents") is not None


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(ROOT))
    from bench import documents

    return documents


def test_corpus_has_twenty_real_documents_of_eight_kinds_with_provenance(bench) -> None:
    docs = bench.load()
    provenance = (ROOT / "corpus" / "documents" / "PROVENANCE.md").read_text(encoding="utf-8")
    shared = (ROOT / "hostshape" / "examples" / "PROVENANCE.md").read_text(encoding="utf-8")

    assert len(docs) >= 20
    assert len({d.kind for d in docs}) >= 8
    for d in docs:
        assert f"`{d.name}`" in provenance, d.name
        if d.file.startswith("hostshape/"):
            assert d.name in shared, d.name
        assert d.license, d.name
        assert d.landmarks, d.name
        assert 4 <= len(d.questions) <= 6, d.name


def test_every_answer_and_landmark_is_in_its_document(bench) -> None:
    """A question the document cannot answer, or a landmark it does not contain, would measure nothing."""
    for d in bench.load():
        text = bench.Received(d.text)
        readable = bench.Received(html.unescape(re.sub(r"<[^>]+>", " ", d.text)))  # HTML and feeds as text
        inline = bench.Received(html.unescape(re.sub(r"<[^>]+>", "", d.text)))  # inline tags in a heading: <code>
        for q in d.questions:
            assert text.answers(q) or readable.answers(q), (d.name, q.ask)
            assert q.needs in ("first", "section") and (q.needs == "first" or q.section), (d.name, q.ask)
        missing = [m for m in d.landmarks if not (text.found(m) or readable.found(m) or inline.found(m))]
        assert not missing, (d.name, missing[:5])


def test_landmarks_file_is_what_the_rules_derive(bench) -> None:
    """bench/documents_landmarks.toml is regenerated, not edited: it equals what bench/document_landmarks.py says."""
    from bench import document_landmarks

    spec = document_landmarks.tomllib.loads(document_landmarks.SPEC.read_text(encoding="utf-8"))
    assert document_landmarks.render(spec) == document_landmarks.OUT.read_text(encoding="utf-8")


def test_a_landmark_in_two_parts_counts_only_when_both_show_close_together(bench) -> None:
    near = bench.Received("kind: Deployment\nmetadata:\n  name: frontend\n")
    far = bench.Received("kind: Deployment\n" + "x\n" * 40 + "name: frontend\n")

    assert near.found(["Deployment", "frontend"])
    assert not far.found(["Deployment", "frontend"])
    assert not near.found(["Role", "frontend"])  # a whole word, not the end of ClusterRole or Deployment


def test_bench_runs_on_three_documents_at_one_budget(bench, tmp_path: Path) -> None:
    out = tmp_path / "DOCUMENTS.md"
    files = ["ripgrep_README.md", "phpcheckstyle_phpunit_junit.xml", "microservices_demo_manifests.yaml"]

    text = bench.main(["--files", *files, "--budgets", "2000", "--no-timing", "--out", str(out)])

    assert out.read_text(encoding="utf-8") == text
    assert text.startswith("# Documents") and "python bench/documents.py --files" in text
    for name in files:
        assert f"| {name} |" in text
    assert "| 2,000 | hostshape | 3/3 |" in text  # every first answer fits the budget


@pytest.mark.xfail(not HAS_ENGINE, reason="DONE-WHEN threshold: needs the document engine (hostshape.documents)")
def test_done_when_first_answer_names_the_landmarks_at_4000(bench) -> None:
    """DONE-WHEN (issue 26): landmark recall of the first answer >= 0.9 mean and >= 0.7 on every document."""
    docs = bench.load()
    cells, _ = bench.run(docs, [4000], peers=False, timing=False)
    recall = {Path(c.file).name: c.recall or 0.0 for c in cells}

    mean = sum(recall.values()) / len(recall)
    low = {k: round(v, 2) for k, v in recall.items() if v < 0.7}

    assert all(c.fits for c in cells)
    assert mean >= 0.9 and not low, f"mean {mean:.2f} (goal 0.9); under 0.7: {low}"


def test_the_section_read_opens_the_entry_a_reader_would(bench) -> None:
    first = (
        "python source document: 99 lines\n"
        "1 class ParameterSource(enum.IntEnum) (L1-9, 9 tok)\n"
        "2 class Context (L10-99, 90 tok)\n"
    )
    entries = bench.outline_entries(first)

    assert entries == {"1": "class ParameterSource(enum.IntEnum)", "2": "class Context"}
    assert bench.best_entry(entries, "Context.get_parameter_source") == "2"
    assert (
        bench.best_entry({**entries, "2.1": "def get_parameter_source(self, name)"}, "Context.get_parameter_source")
        == "2.1"
    )
    assert (
        bench.best_entry(
            {"1": "2.5 Mutable Global State", "2": "2.12 Default Argument Values"}, "2.12 Default Argument Values"
        )
        == "2"
    )

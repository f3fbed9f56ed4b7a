"""Large record lists of services new to the corpus in issue 27's tenth round (corpus/PROVENANCE.md: the SARIF SDK's
converter test data, publish-unit-test-result-action's test data), as the model receives them with zero
configuration: each test names the promise it checks on the exact text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hostshape.tokens import count_tokens
from tests.answers import shaped_json_text as _shaped

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def _load(name: str) -> Any:
    return json.loads((CORPUS / name).read_text(encoding="utf-8"))


def test_a_sarif_log_names_every_result_by_its_fingerprint_within_the_budget(tmp_path: Path) -> None:
    # Fortify via SARIF: 114 results (40k tokens) told apart only by a hex fingerprint under runs[0].results.
    raw = _load("sarif_fortify_banned_apis_results.json")
    text, shown = _shaped(tmp_path, raw, 4000)
    assert count_tokens(text) <= 4000
    meta = shown["_hostshape"]
    assert meta["total"] == 114 and meta["handle"]
    for result in raw["runs"][0]["results"]:
        assert result["partialFingerprints"]["InstanceId"] in text


def test_check_run_annotations_state_the_count_and_show_the_first_failure_whole(tmp_path: Path) -> None:
    # 145 annotations (80k tokens) of failed tests, each with a long near-identical stack trace.
    raw = _load("nunit_check_run_annotations.json")
    text, shown = _shaped(tmp_path, raw, 2000)
    assert count_tokens(text) <= 2000
    meta = shown["_hostshape"]
    assert meta["list"] == "annotations" and meta["total"] == 145 and meta["handle"]
    assert shown["title"] == raw["title"] and shown["stats"]["tests_fail"] == 144
    assert shown["annotations"][0]["title"] == raw["annotations"][0]["title"]

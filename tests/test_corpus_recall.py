"""Issue 16, done when: zero-configuration shaping holds its promises on every payload of the corpus.

The corpus is ``corpus/manifest.toml`` (recorded payloads from 19 services plus three text documents, with each
payload's record lists and identifiers); the measures are ``bench/recall.py``'s, so the test and the benchmark
agree. At budgets 2,000 / 4,000 / 8,000, with zero configuration:

- the text the model receives fits the budget (exact o200k count), is valid JSON when the input was, and two calls
  give the same text; a result already within the budget passes through untouched;
- nothing is cut silently: whenever the output lost records (an identifier of the main list is missing), elided
  something (an ``…`` the input did not have) or, for text, changed at all, the envelope says ``truncated: true``
  and names the cut (``notes``, or ``returned`` < ``total`` for the records of the list it is built around);
- identifier recall at 4,000 is >= 0.98 on average over the list payloads, and >= 0.90 on every list payload whose
  identifier-only listing fits in 80% of the budget.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import recall  # noqa: E402 - needs the repository root on sys.path
from hostshape.output.envelope import KEY, TEXT_PREFIX  # noqa: E402
from hostshape.tokens import count_tokens  # noqa: E402

PAYLOADS = recall.load()
BY_NAME = {p.name: p for p in PAYLOADS}
CASES = [(p.name, b) for b in recall.BUDGETS for p in PAYLOADS]
RECALL_BUDGET = 4000
LIST_PAYLOADS = [p.name for p in PAYLOADS if p.main is not None]
IDS_FIT = [  # list payloads whose identifier-only listing fits in 80% of the budget
    p.name for p in PAYLOADS if p.main is not None and p.main.floor_tokens() <= recall.FLOOR_SHARE * RECALL_BUDGET
]

#: Corpus payloads added for issue 27 (second round) that hostshape does not handle yet, with the cause seen; the
#: records work removes an entry when it fixes the cause. Their recall cases are expected failures (non-strict, so
#: a fix shows as XPASS) and the mean is taken without them until then, so that a new payload never turns the
#: suite red before its fix lands.
KNOWN_GAPS: dict[str, str] = {}
#: (payload, budget) pairs whose cut the envelope does not name yet, with the cause seen.
SILENT_GAPS: dict[tuple[str, int], str] = {}


def _gap(name: str, reason: str | None) -> Any:
    marks = [pytest.mark.xfail(reason=f"issue 27: {reason}", strict=False)] if reason else []
    return pytest.param(name, marks=marks, id=name)


def _case(name: str, budget: int) -> Any:
    reason = SILENT_GAPS.get((name, budget))
    marks = [pytest.mark.xfail(reason=f"issue 27: {reason}", strict=False)] if reason else []
    return pytest.param(name, budget, marks=marks, id=f"{name}-{budget}")


Shaper = Callable[[str, int], tuple[str, Any, str]]


@pytest.fixture(scope="module")
def shaped(tmp_path_factory: pytest.TempPathFactory) -> Shaper:
    """``shaped(name, budget)`` -> (text the model receives, the Shaped result, the text of a second call); each
    pair is computed once per module."""
    spill = str(tmp_path_factory.mktemp("spill"))
    cache: dict[tuple[str, int], tuple[str, Any, str]] = {}

    def get(name: str, budget: int) -> tuple[str, Any, str]:
        if (name, budget) not in cache:
            first, res, _ = recall.shape_text(BY_NAME[name], budget, spill)
            second, _, _ = recall.shape_text(BY_NAME[name], budget, spill)
            cache[name, budget] = (first, res, second)
        return cache[name, budget]

    return get


def test_every_corpus_file_is_listed_with_its_provenance_and_records() -> None:
    on_disk = {f.name for f in (ROOT / "corpus").iterdir() if f.is_file()} - {"manifest.toml", "PROVENANCE.md"}
    listed = {p.name for p in PAYLOADS if p.file.startswith("corpus/")}
    assert on_disk == listed and len(listed) >= 19
    provenance = (ROOT / "corpus" / "PROVENANCE.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in provenance for name in listed)
    for p in PAYLOADS:
        if p.main is not None:
            assert len(p.main.records) >= 2, f"{p.name}: no records at {p.main.path}"


@pytest.mark.parametrize(("name", "budget"), CASES, ids=[f"{n}-{b}" for n, b in CASES])
def test_output_fits_is_valid_and_deterministic(shaped: Shaper, name: str, budget: int) -> None:
    payload = BY_NAME[name]
    text, res, again = shaped(name, budget)

    assert count_tokens(text) <= budget
    if payload.is_json:
        json.loads(text)
    assert text == again, "two calls on the same input gave different text"
    if count_tokens(payload.text) <= budget:
        assert not res.changed and text == payload.text, "a result within the budget must pass through untouched"


def _cuts(payload: recall.Payload, text: str) -> list[str]:
    """What the output visibly lost, judged from the input and the output alone (not from hostshape's report)."""
    if not payload.is_json:
        return ["the text was changed"] if text != payload.text else []
    found = []
    if payload.main is not None and (missing := payload.main.missing(text)):
        found.append(f"{len(missing)} records of {payload.main.path} (e.g. {missing[0]!r})")
    if "…" in text and "…" not in payload.text:
        found.append("elided content (…)")
    return found


def _envelope(text: str, is_json: bool) -> dict[str, Any] | str | None:
    if not is_json:
        last = text.rstrip("\n").rsplit("\n", 1)[-1]
        return last if last.startswith(TEXT_PREFIX) else None
    doc = json.loads(text)
    return doc.get(KEY) if isinstance(doc, dict) else doc if isinstance(doc, str) else None


def _names_the_cut(env: dict[str, Any]) -> bool:
    if env.get("notes"):
        return True
    returned, total = env.get("returned"), env.get("total")
    return isinstance(returned, int) and isinstance(total, int) and returned < total and bool(env.get("list"))


# Fails on main: nested lists cut to their first items ("…+46 more"), text previews and record lists are cut with
# `truncated: false` or without any note (see bench/RECALL.md).
@pytest.mark.parametrize(("name", "budget"), [_case(n, b) for n, b in CASES])
def test_nothing_is_cut_silently(shaped: Shaper, name: str, budget: int) -> None:
    payload = BY_NAME[name]
    text, res, _ = shaped(name, budget)
    cuts = _cuts(payload, text)
    if not res.changed or not cuts:
        return
    env = _envelope(text, payload.is_json)
    assert env is not None, f"cut without an envelope: {cuts}"
    if isinstance(env, str):  # text output's last line, or a last-resort JSON string
        assert "truncated" in env, f"cut but the envelope does not say truncated: {cuts}; {env!r}"
        return
    assert env.get("truncated") is True, f"cut but truncated is {env.get('truncated')!r}: {cuts}"
    assert _names_the_cut(env), f"cut but the envelope does not name it: {cuts}; {env}"


# Fails on main: mean 0.86 at 4,000 (bench/RECALL.md, "before" figures in the report). The mean is taken
# where every identifier can fit (issue 27's definition): a 1,041-span trace's ids alone need 6,900 tokens.
def test_mean_identifier_recall_at_4000_where_the_ids_fit(shaped: Shaper) -> None:
    recalls = {n: BY_NAME[n].recall(shaped(n, RECALL_BUDGET)[0]) for n in IDS_FIT if n not in KNOWN_GAPS}
    mean = statistics.fmean(r for r in recalls.values() if r is not None)
    low = {n: round(r, 2) for n, r in recalls.items() if r is not None and r < 0.98}
    assert mean >= 0.98, f"mean recall {mean:.3f}; below 0.98: {low}"


# Fails on main for AWS EC2, Prometheus, Terraform, both Jira files and HubSpot deals (bench/RECALL.md).
@pytest.mark.parametrize("name", [_gap(n, KNOWN_GAPS.get(n)) for n in IDS_FIT])
def test_identifier_recall_at_4000_where_the_ids_fit(shaped: Shaper, name: str) -> None:
    payload = BY_NAME[name]
    text = shaped(name, RECALL_BUDGET)[0]
    value = payload.recall(text)
    assert value is not None and value >= 0.90, (
        f"recall {value:.2f} at {payload.main.path} by {payload.main.id}; "  # type: ignore[union-attr]
        f"first missing: {payload.main.missing(text)[:5]}"  # type: ignore[union-attr]
    )

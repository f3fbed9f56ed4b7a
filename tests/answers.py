"""What the model receives from one shaping, as the round tests read it: one copy of their shared helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import hostshape
from hostshape import Policy, Shaped
from hostshape.tokens import count_tokens


def shaped_document(text: str, budget: int, tmp_path: Path) -> tuple[str, Shaped, Policy]:
    """A document shaped as a docs tool's result: the text the model reads (the document itself when it passed
    as it came), the result, and the policy (its spill store serves the reads)."""
    policy = Policy(budget=budget, spill_dir=tmp_path)
    res = hostshape.shape(text, policy=policy, tool="read_document", server="documents")
    assert res.fault is None
    return (res.text if res.changed else text), res, policy


def document_head(text: str) -> str:
    """The head of a document answer: what follows its ``Head (lines ...`` line."""
    return text.split("\nHead (lines ", 1)[1]


def shaped_json(payload: Any, budget: int, tmp_path: Path) -> dict[str, Any]:
    """``payload``'s JSON shaped at ``budget``, checked to fit with the real tokenizer, parsed."""
    return shaped_json_text(tmp_path, payload, budget)[1]


def shaped_json_text(tmp_path: Path, payload: Any, budget: int) -> tuple[str, dict[str, Any]]:
    """As ``shaped_json``, with the exact text beside what it parses to."""
    text = hostshape.shape(json.dumps(payload), policy=Policy(budget=budget, spill_dir=tmp_path)).text
    assert count_tokens(text) <= budget
    shown: dict[str, Any] = json.loads(text)
    return text, shown


def assert_document_fits(path: Path, budget: int, tmp_path: Path) -> str:
    """The document at ``path`` shaped as a docs tool's result at ``budget``: what the model receives, checked
    with the real tokenizer to fit the budget."""
    text, _, _ = shaped_document(path.read_text(), budget, tmp_path)
    assert count_tokens(text) <= budget, f"{path.name} at {budget}: {count_tokens(text)} tokens"
    return text


def read_policy(tmp_path: Path, budget: int) -> Policy:
    """A policy at ``budget`` whose spill store is ``tmp_path`` and whose way back is a ``hostshape_read`` tool."""
    return Policy(budget=budget, spill_dir=tmp_path, retrieval_tool="hostshape_read")


def shown_json(raw: Any, policy: Policy) -> dict[str, Any]:
    """``raw`` shaped under ``policy``: never an empty answer, within the budget by the real tokenizer, parsed."""
    text = hostshape.shape(raw, policy=policy).text
    assert text.strip() and count_tokens(text) <= policy.budget
    shown: dict[str, Any] = json.loads(text)
    return shown

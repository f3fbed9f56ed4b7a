"""Issue 27, sixth round: the fast screens and batched steps added for long inputs agree with the slow paths.

- a listing's over-check renders and costs its rows a block at a time: the same answer, rows read and texts as the
  row-by-row check, each row costed as ``TokenEstimate.estimate`` costs it;
- ``render.dumps_each`` is ``dumps`` of each value, also for values orjson declines;
- a long text in a block of records is told by a pattern that starts with a quote and the first quote's place: the
  same answer as the pattern that may also start at the beginning;
- the loss check deletes a rendering's blanks as ``translate`` does, reads the rendering as bytes or as text alike,
  and a rendering left undecoded is one that could not fit;
- a text orjson parsed holds no lone surrogate escape: one that only looks like it (an escaped backslash) is not
  noted, and one in a text orjson refuses still is;
- a record's short scalar members are kept as ``_value`` keeps them, at any depth, with no cut counted.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from hostshape import Policy, shape
from hostshape.fit.budget import Limit, TokenEstimate
from hostshape.fit.records import _longer_piece_in, _over_by_block
from hostshape.input.lossless import _BLANK_BYTES, _without_blanks, losses
from hostshape.output.render import dumps, dumps_each
from hostshape.pipeline import _exact_json, _may_fit
from hostshape.records.shrink import NESTED_PREVIEW_CHARS, Cuts, _Schema, _value
from hostshape.tokens import SURELY_OVER_CHARS_PER_TOKEN

_text = st.text(alphabet=st.sampled_from('ab é😀"\\:,[]{} \t\n0123456789'), max_size=60)
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(10**20), 10**20), st.floats(allow_nan=True), _text)
_rows = st.lists(st.lists(_scalar, min_size=1, max_size=6), max_size=300)


def _over_row_by_row(rows: list[list[Any]], limit: Limit, rate: float, room: int) -> tuple[bool, list[Any], list[str]]:
    """The row-by-row over-check (``_RecordFit._over`` with its rows kept), the estimate at ``rate``."""
    ratio = TokenEstimate(limit)
    ratio.value = rate
    read: list[Any] = []
    texts: list[str] = []
    size = estimated = 0
    for row in rows:
        text = dumps(row)
        read.append(row)
        texts.append(text)
        size += len(text) + 1
        estimated += ratio.estimate(text) + 1
        if size > room * SURELY_OVER_CHARS_PER_TOKEN or estimated > 1.25 * room:
            return True, read, texts
    return False, read, texts


@settings(max_examples=300, deadline=None)
@given(_rows, st.floats(0.05, 1.5), st.integers(1, 3000))
def test_the_block_over_check_reads_costs_and_answers_as_row_by_row(
    rows: list[list[Any]], rate: float, room: int
) -> None:
    read: list[Any] = []
    texts: list[str] = []
    over = _over_by_block(iter(rows), rate, room, read, texts)
    assert (over, read, texts) == _over_row_by_row(rows, Limit(room, None, "o200k_base"), rate, room)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_scalar, st.lists(_scalar, max_size=3), st.just(2**70), st.just("\ud800x")), max_size=20))
def test_dumps_each_is_dumps_of_each_value(values: list[Any]) -> None:
    assert dumps_each(values) == [dumps(v) for v in values]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from('"ab\\é'), max_size=40), st.integers(0, 12))
def test_the_long_piece_screen_agrees_with_the_pattern_that_may_start_anywhere(text: str, level: int) -> None:
    old = re.compile(f'(?:^|")[^"]{{{level + 1}}}')
    assert _longer_piece_in(text, level) == (old.search(text) is not None)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=3000), st.lists(st.sampled_from([b" ", b"\t", b"\n", b"\r", b"x"]), max_size=200))
def test_a_renderings_blanks_are_deleted_as_translate_deletes_them(head: bytes, blanks: list[bytes]) -> None:
    text = head + b"".join(blanks) + head
    assert _without_blanks(text) == text.translate(None, _BLANK_BYTES)
    sparse = b"a" * 70_000 + b" " + b"b" * 70_000  # few spaces in a long text: deleted by replace
    assert _without_blanks(sparse) == sparse.translate(None, _BLANK_BYTES)


_finite = st.floats(allow_nan=False, allow_infinity=False)
_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**18), 10**18), _finite, _text),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_text, inner, max_size=4)),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_json, st.sampled_from([None, 2]), st.booleans(), st.sampled_from([(",", ":"), (", ", ": ")]))
def test_the_loss_check_reads_a_rendering_as_bytes_or_text_alike(
    value: Any, indent: int | None, ascii_only: bool, separators: tuple[str, str]
) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only, separators=separators)
    for written in (text, f'{{"k": 1, "k": {text}}}', f"[12345678901234567.89, {text}]"):  # a key repeated, a rounding
        rendering = _exact_json(orjson.loads(written))
        assert rendering is not None
        assert losses(written, rendering) == losses(written, rendering.decode()) == losses(written)


@settings(max_examples=300, deadline=None)
@given(_text, st.integers(1, 40), st.sampled_from([None, 10, 100]))
def test_a_rendering_left_undecoded_could_not_fit(text: str, tokens: int, chars: int | None) -> None:
    limit = Limit(tokens, chars, "o200k_base")
    rendering = json.dumps([text * 20, text], ensure_ascii=False).encode()
    if _may_fit(rendering, limit) is None:
        assert not limit.fits(rendering.decode())
    else:
        assert _may_fit(rendering, limit) == rendering.decode()


def test_a_strict_text_is_not_noted_for_an_escaped_backslash_before_ud800() -> None:
    records = [{"id": i, "path": "C:\\\\ud800\\\\x", "text": "word " * 40} for i in range(200)]
    text = json.dumps(records)
    assert "\\\\ud800" in text
    assert "surrogate" not in shape(text, policy=Policy(budget=500, spill=False)).text


def test_a_lone_surrogate_escape_in_a_text_orjson_refuses_is_noted() -> None:
    rest = "".join(f', {{"id": {i}, "t": "{"w " * 60}"}}' for i in range(2, 80))
    text = '[{"id": 1, "v": NaN, "s": "\\ud800"}' + rest + "]"
    assert "lone UTF-16 surrogate" in shape(text, policy=Policy(budget=500, spill=False)).text


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.integers(),
        st.floats(allow_nan=True),
        st.booleans(),
        st.text(min_size=1, max_size=NESTED_PREVIEW_CHARS),
        st.from_regex(r"[A-Za-z0-9+/]{60,80}", fullmatch=True),
    ),
    st.integers(0, 8),
)
def test_a_short_scalar_member_is_kept_as_value_keeps_it(member: Any, depth: int) -> None:
    cuts = Cuts()
    assert _value(member, "a.b", depth, _Schema(), cuts, root=False) is member
    assert not cuts.texts and not cuts.blobs and not cuts.empty
    record = {"a": member, "b": {"c": member, "d": [member]}}
    schema = _Schema(noise={"": set()})
    assert _value(record, "", 0, schema, Cuts(), root=True) == record

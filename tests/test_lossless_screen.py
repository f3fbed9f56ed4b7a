"""The loss check's fast screen (``losses(text, rendering)``) names exactly what the full parse names."""

from __future__ import annotations

import json
import math
import random
import struct
from decimal import Decimal

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hostshape.input.lossless import _same_but_blanks, _surely_lossless, losses
from hostshape.input.parse import parse_json
from hostshape.output.render import NotExact, dumps


def _screened(text: str) -> list[str]:
    parsed = parse_json(text)
    if not parsed.ok or not parsed.strict:
        return losses(text)
    try:
        rendering = dumps(parsed.value, exact=True)
    except NotExact:
        return losses(text)
    return losses(text, rendering)


HARD = [
    '{"a":1,"a":2}',
    '{"a":"\\u003a","a":1}',  # the dropped member's colon hidden by an escape elsewhere
    '{"a":1,"a":2,"b":"\\u003Ax"}',
    '{"a:":1,"a:":2}',
    '{"x":"a\\\\":1,"x":"a\\\\":2}',
    '{"a": 1, "b": {"c": [1, 2, {"d": 3, "d": 4}]}}',
    '{"a":1.23456789012345678}',
    "[0.1, 1234567890.1234567]",
    "[1e400]",
    "[1e-400]",
    "[123456789012345678e3]",
    '{"a": -1.5e300}',
    '{"a":1e0300}',
    "[5e-324]",
    '{"k":  1.2345678901234567890}',
    "\ufeff[1.12345678901234567]",
    "1.12345678901234567",
    '{"t":"3e123 4.12345678", "u": ":1.12345678901234567"}',
    "[1.0000000000000000000000001]",
    "[12345678901234567890]",
    '{"n": [' + " " * 100 + "1.123456789012345678]}",  # a literal far from its comma
]


@pytest.mark.parametrize("text", HARD)
def test_the_screen_names_what_the_full_parse_names(text: str) -> None:
    assert _screened(text) == losses(text)


def test_the_screen_never_misses_a_loss_in_random_documents() -> None:
    rng = random.Random(27)
    atoms = [
        "1",
        "1.5",
        "1.12345678901234567",
        "12345678901234567890",
        "1e400",
        "1E-350",
        "-0.0",
        "0.1234567890123456789",
        '"x:y"',
        '"\\u003a"',
        '"3e123"',
        "true",
        "null",
    ]

    def document(depth: int) -> str:
        roll = rng.random()
        if depth > 3 or roll < 0.4:
            return rng.choice(atoms)
        if roll < 0.7:
            keys = [rng.choice("ab:") for _ in range(rng.randint(0, 4))]
            return "{" + ",".join(f'"{k}":{document(depth + 1)}' for k in keys) + "}"
        return "[" + ", ".join(document(depth + 1) for _ in range(rng.randint(0, 4))) + "]"

    lossy = 0
    for _ in range(3000):
        text = document(0)
        expected = losses(text)
        lossy += bool(expected)
        assert _screened(text) == expected, text
    assert lossy > 500  # the documents do lose things: the screen was put to the test


# -- the blank-deleted comparison (``_same_but_blanks``) ------------------------------------------------------------

_STYLES = [
    {},  # Python's default: ", " and ": ", non-ASCII escaped
    {"separators": (",", ":"), "ensure_ascii": False},  # compact, as JSON.stringify writes
    {"indent": 2, "ensure_ascii": False},
    {"indent": "\t", "separators": (",", ": ")},
]


def _record(rng: random.Random, n: int) -> dict[str, object]:
    return {
        "id": n,
        "name": rng.choice(["a b", "x  y", "caf\u00e9", "\\ ", 'q"t', "p:q", "tab\there", " lead"]),
        "score": rng.choice([1.5, 0.1, -2.25, 2.5e10, 1e-7, 123456.789]),
        "tags": [rng.randint(0, 99) for _ in range(rng.randint(0, 3))],
        "nested": {"k": rng.choice([None, True, "v w"])},
    }


def _hide(rng: random.Random, text: str, loss: str) -> str:
    """``text`` with one loss hidden before a random record's first member."""
    starts, at = [], text.find('"id"')
    while at >= 0:
        starts.append(at)
        at = text.find('"id"', at + 1)
    at = rng.choice(starts)
    hidden = {
        "rounded": '"extra": 1.12345678901234567, ',
        "exponent": '"extra": 1e400, ',
        "repeated": '"id": -1, ',
        "repeated spaced": '"name":   "a b" , ',
        "repeated escaped": '"n\\u0061me": "z", ',
    }[loss]
    return text[:at] + hidden + text[at:]


@pytest.mark.parametrize("loss", ["rounded", "exponent", "repeated", "repeated spaced", "repeated escaped"])
def test_a_loss_hidden_in_a_large_text_is_always_named(loss: str) -> None:
    rng = random.Random(len(loss))
    for style in _STYLES:
        records = [_record(rng, n) for n in range(3000)]
        text = _hide(rng, json.dumps(records, **style), loss)  # type: ignore[arg-type]
        assert len(text) > 200_000
        expected = losses(text)
        assert expected, (loss, style)
        assert _screened(text) == expected


def test_a_large_text_that_loses_nothing_is_told_by_the_comparison() -> None:
    """Few differences from the rendering (a number in another form, an escaped character): told by the comparison;
    many: left to the other screens, which tell it too."""
    rng = random.Random(5)
    for style in _STYLES:
        records = [_record(rng, n) for n in range(3000)]
        for record in records:
            if record["score"] == 1e-7 or record["name"] == "caf\u00e9":  # Python writes 1e-07, orjson 1e-7
                record["score"], record["name"] = 1.5, "a b"
        for n in range(0, 3000, 300):  # 30 differences
            records[n]["score"], records[n]["name"] = 1e-7, "caf\u00e9 \U0001f600"
        for many in (False, True):
            if many:
                records = [{**r, "score": 1e-7} for r in records]
            text = json.dumps(records, **style)  # type: ignore[arg-type]
            rendering = dumps(parse_json(text).value, exact=True)
            assert _same_but_blanks(text.encode(), rendering.encode()) is not many, style
            assert _surely_lossless(text, rendering) and losses(text, rendering) == losses(text) == []


_JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.sampled_from(' ab:\\"\t\u00e9,{}[]'), max_size=8)
)
_JSON_VALUES = st.recursive(
    _JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(alphabet=st.sampled_from(" ab:\\"), max_size=3), inner, max_size=4)
    ),
    max_leaves=20,
)
_LITERALS = st.sampled_from(
    ["1.12345678901234567", "0.30000000000000000444", "1e400", "-1e-400", "123456789012345678e3", "1.5", "1E2", "-0"]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=_JSON_VALUES,
    style=st.sampled_from(_STYLES),
    literal=_LITERALS,
    repeat=st.booleans(),
    where=st.integers(min_value=0),
)
def test_the_comparison_never_hides_a_loss(
    value: object, style: dict[str, object], literal: str, repeat: bool, where: int
) -> None:
    """A random document in a random writer's style, with a number literal (some rounded) and maybe a repeated key
    put into one of its objects: the screens name what the full parse names."""
    document = {"wrap": value, "k": 1}
    text = json.dumps(document, **style)  # type: ignore[arg-type]
    opens = [i for i, c in enumerate(text) if c == "{" and text[i + 1 : i + 2] in ('"', "\n", "}")]
    opens = [i for i in opens if _outside_strings(text, i)]
    at = opens[where % len(opens)] + 1
    close = text[at:].lstrip()[:1] == "}"
    member = ('"k": 0, ' if repeat else "") + f'"lit": {literal}' + ("" if close else ", ")
    text = text[:at] + member + text[at:]
    expected = losses(text)
    assert _screened(text) == expected, text
    parsed = parse_json(text)
    if parsed.strict and _same_but_blanks(text.encode("utf-8", "surrogatepass"), orjson.dumps(parsed.value)):
        assert expected == [], text


def _outside_strings(text: str, at: int) -> bool:
    """Whether position ``at`` of the JSON ``text`` is outside every string."""
    inside, escaped = False, False
    for char in text[:at]:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = inside
        elif char == '"':
            inside = not inside
    return not inside


def test_orjsons_shortest_form_of_a_double_is_reprs() -> None:
    """The premise of ``_same_but_blanks`` for numbers: a literal written as orjson writes its double is exact."""
    rng = random.Random(64)
    for n in range(200_000):
        bits = (
            rng.getrandbits(64)
            if n % 2
            else struct.unpack("<Q", struct.pack("<d", rng.random() * 10 ** rng.randint(-30, 30)))[0]
        )
        double = struct.unpack("<d", bits.to_bytes(8, "little"))[0]
        if math.isfinite(double):
            assert Decimal(orjson.dumps(double).decode()) == Decimal(repr(double))


def _written(rng: random.Random, value: object) -> str:
    """``value`` as JSON written by a writer that escapes characters and forms numbers as it pleases (and now and
    then writes a number with more digits than a double holds)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return rng.choice([str(value), f"{value}.0", f"{value}e0", f"{value}E+0"]) if value else rng.choice(["0", "-0"])
    if isinstance(value, float):
        forms = [repr(value), f"{value:.17g}", f"{value:.25e}", f"{value!r}".upper(), json.dumps(value) + "0" * 3]
        return rng.choice([f for f in forms if "inf" not in f.lower() and "nan" not in f.lower()] or ["0"])
    if isinstance(value, str):
        out = []
        for char in value:
            roll = rng.random()
            if char in '"\\' or ord(char) < 0x20:
                out.append(json.dumps(char)[1:-1] if roll < 0.5 else f"\\u{ord(char):04{rng.choice('xX')}}")
            elif roll < 0.3 and ord(char) < 0x10000:
                out.append(f"\\u{ord(char):04{rng.choice('xX')}}")
            elif roll < 0.35:
                out.append(json.dumps(char)[1:-1])  # surrogate pairs for astral characters
            elif roll < 0.4 and char == "/":
                out.append("\\/")
            else:
                out.append(char)
        return '"' + "".join(out) + '"'
    if isinstance(value, list):
        return "[" + rng.choice([",", ", "]).join(_written(rng, v) for v in value) + "]"
    assert isinstance(value, dict)
    items = [f"{_written(rng, k)}{rng.choice([':', ': '])}{_written(rng, v)}" for k, v in value.items()]
    if items and rng.random() < 0.2:  # a key repeated
        items.insert(rng.randrange(len(items) + 1), items[rng.randrange(len(items))])
    return "{" + ",".join(items) + "}"


_CHARS = st.sampled_from([*' ab:\\"\t\n\u00e9/\u2028\U0001f600,0e.-', "\u0001"])
_MIXED = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=_CHARS, max_size=10),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(alphabet=_CHARS, max_size=3), inner, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_MIXED, seed=st.integers(min_value=0, max_value=2**32))
def test_the_comparison_past_escapes_and_number_forms_never_hides_a_loss(value: object, seed: int) -> None:
    text = _written(random.Random(seed), value)
    parsed = parse_json(text)
    if not parsed.ok:
        return  # a form Python's repr gives that is not JSON (none expected, but never this test's concern)
    expected = losses(text)
    assert _screened(text) == expected, text
    if parsed.strict and _same_but_blanks(text.encode("utf-8", "surrogatepass"), orjson.dumps(parsed.value)):
        assert expected == [], text

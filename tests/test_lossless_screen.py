"""The loss check's fast screen (``losses(text, rendering)``) names exactly what the full parse names."""

from __future__ import annotations

import random

import pytest

from hostshape.input.lossless import losses
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

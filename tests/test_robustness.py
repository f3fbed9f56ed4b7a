"""No input breaks the budget, crashes the host or reads unclearly (issue 9, core part).

Two halves. Property-based tests (hypothesis) generate JSON (deep, wide, unicode, huge strings, mixed types), prose
and MCP content-block mixes with budgets from 16 to 20,000 tokens, and check the core's promises for every one:
``shape`` never raises and never faults; the exact text fits (``count_tokens(res.text) <= budget`` when
``res.changed``, and an unchanged result already fits); the text is valid JSON whenever the input was JSON; and the
same input and policy give byte-identical text. Then each named bad input from the issue gets its own test, which
also checks that the answer says what happened.

Every policy here spills into a temporary folder, never the user's cache. A test marked ``xfail(strict=True)``
pins a core bug (the reason names it); it turns into a failure as soon as the core is fixed, so the marker can go.
"""

from __future__ import annotations

import base64
import json
import math
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hostshape import Policy, Rule, Shaped, shape
from hostshape.tokens import count_tokens
from hostshape.wayback.retrieve import read

try:  # the MCP SDK's own result objects, when installed (imported here: importing it inside a strategy would
    import mcp.types as mcp_types  # touch the global random state, which hypothesis forbids)
except ImportError:  # pragma: no cover
    mcp_types = None

# -- helpers ------------------------------------------------------------------------------------------------

# Top-level keys the unwrapper reads as a host wrapper rather than data (FastMCP's {"result": X}, MCP results,
# OpenAI function_call_output); generated data avoids them so that "the input was JSON" stays true.
_WRAPPER_KEYS = frozenset({"result", "structuredContent", "content", "type", "output", "isError"})
SLOW = 10.0  # seconds; a named input slower than this is a core performance problem (reported, not asserted)


@pytest.fixture(scope="module")
def spill_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("spill")


@pytest.fixture()
def policy(tmp_path: Path) -> Policy:
    return Policy(budget=500, spill_dir=tmp_path / "spill")


def cap(policy: Policy, tool: str | None = None) -> int:
    """The token cap the exact text must meet: the tool's budget divided by the safety factor."""
    return max(1, math.floor(policy.budget_for(tool) / policy.safety_factor))


def assert_budgeted(res: Shaped, policy: Policy, tool: str | None = None) -> None:
    """The core's promise for one result: no fault, UTF-8-encodable text, and it fits the tool's budget."""
    assert isinstance(res, Shaped)
    assert res.fault is None, f"hostshape faulted: {res.fault}"
    assert res.budget == policy.budget_for(tool)
    res.text.encode("utf-8")  # no lone surrogates reach a host
    tokens = count_tokens(res.text, policy.encoding)
    limit = cap(policy, tool)
    # changed: the replacement fits; unchanged: the host's own result is left alone because it already fits.
    assert tokens <= limit, f"{tokens} tokens > cap {limit} (changed={res.changed}, {res.strategy})"
    if policy.max_chars is not None:
        assert len(res.text) <= policy.max_chars


def assert_json(res: Shaped) -> Any:
    try:
        return json.loads(res.text)
    except ValueError as exc:  # pragma: no cover - the failure message is the point
        pytest.fail(f"not valid JSON ({exc}): {res.text[:300]!r}")


def strict_json(text: str) -> Any:
    """json.loads that also refuses NaN / Infinity, which are not JSON."""

    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def envelope_of(res: Shaped) -> dict[str, Any]:
    data = assert_json(res)
    assert isinstance(data, dict) and next(iter(data)) == "_hostshape", res.text[:300]
    return data["_hostshape"]


def timed(raw: Any, policy: Policy, **kw: Any) -> tuple[Shaped, float]:
    started = time.perf_counter()
    res = shape(raw, policy=policy, **kw)
    return res, time.perf_counter() - started


def report_if_slow(what: str, seconds: float) -> None:
    """Timing is measured, not asserted: a slow case shows up as a warning in the test summary."""
    print(f"{what}: shaped in {seconds:.2f} s")
    if seconds > SLOW:
        warnings.warn(f"core performance: {what} took {seconds:.1f} s to shape (over {SLOW:.0f} s)", stacklevel=2)


# -- strategies ---------------------------------------------------------------------------------------------

_PIECES = ["x", "word ", "漢字かな", "😀", '"', "\\", "\n", "\t", "\x01", "é", "\u200b", "<p>", "ab cd ef. "]

keys = st.text(max_size=12).filter(lambda k: k not in _WRAPPER_KEYS)
huge_strings = st.builds(lambda piece, n: piece * n, st.sampled_from(_PIECES), st.integers(200, 40_000))
small_leaves = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
)
leaves = small_leaves | huge_strings
nested = st.recursive(
    leaves, lambda inner: st.lists(inner, max_size=6) | st.dictionaries(keys, inner, max_size=6), max_leaves=30
)


def _nest(value: Any, depth: int, as_dict: bool) -> Any:
    for _ in range(depth):
        value = {"a": value} if as_dict else [value]
    return value


# Deep enough to pass orjson's 255-level serializer limit; named tests go deeper.
deep = st.builds(_nest, nested, st.integers(1, 240), st.booleans())
wide_objects = st.builds(lambda n, v: {f"k{i}": v for i in range(n)}, st.integers(0, 1500), small_leaves)


def _record(i: int, body: str, login: str, extra: Any) -> dict[str, Any]:
    return {
        "id": i,
        "number": i + 1,
        "title": f"record {i}",
        "state": "open",
        "body": body,
        "user": {"login": login, "id": i, "avatar_url": "https://avatars.example/u", "url": "https://api.x/u"},
        "html_url": f"https://github.example/r/{i}",
        "node_id": "N_" + "x" * 20,
        "extra": extra,
    }


records = st.builds(
    lambda n, body, login, extra, at: (
        [_record(i, body, login, extra) for i in range(n)]
        if at is None
        else {"total_count": n, at: [_record(i, body, login, extra) for i in range(n)]}
    ),
    st.integers(0, 400),
    st.text(max_size=30) | st.builds(lambda piece, n: piece * n, st.sampled_from(_PIECES), st.integers(50, 3_000)),
    st.text(min_size=1, max_size=10),
    nested,
    st.none() | st.sampled_from(["items", "commits", "data"]),
)
json_values = nested | deep | wide_objects | records


def _as_input(value: Any, form: str) -> Any:
    if form == "python":
        return value
    text = json.dumps(value, ensure_ascii=False, indent=2 if form == "pretty" else None)
    if form == "bytes":
        return text.encode("utf-8")
    if form == "fastmcp":  # FastMCP `-> str` tool: the text once as a block, again as structuredContent
        return {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text}, "isError": False}
    if form == "structured":  # structuredContent that mirrors the text: one payload, not two
        return {"content": [{"type": "text", "text": text}], "structuredContent": value, "isError": False}
    return text


json_inputs = st.tuples(json_values, st.sampled_from(["python", "text", "pretty", "bytes", "fastmcp", "structured"]))

_RULES = (
    Rule(tool="jp", jmespath="[*].{id: id, title: title}"),
    Rule(tool="fields", fields=("id", "title", "user.login"), rename={"user.login": "author"}),
    Rule(tool="small", budget=64),
)
policies = st.builds(
    lambda budget, encoding, factor, max_chars, on_fault: Policy(
        budget=budget, encoding=encoding, safety_factor=factor, max_chars=max_chars, rules=_RULES, on_fault=on_fault
    ),
    st.integers(16, 20_000),
    st.sampled_from(["o200k_base", "o200k_base", "cl100k_base"]),
    st.sampled_from([1.0, 1.0, 1.3]),
    st.none() | st.none() | st.integers(400, 200_000),
    st.sampled_from(["pass", "refuse"]),
)
tools = st.sampled_from([None, "list_things", "jp", "fields", "small"])

prose_lines = st.text(max_size=200) | st.sampled_from(
    [
        "",
        "   ",
        "# Heading",
        "- item",
        "data:image/png;base64," + "A" * 300,
        "https://tracker.example/click?" + "u=" + "z" * 400,
        "```",
        "\t\tindented",
        "\u202eright-to-left",
    ]
)
prose = st.builds(
    lambda lines, reps, sep: sep.join(lines) * reps,
    st.lists(prose_lines, max_size=40),
    st.integers(1, 300),
    st.sampled_from(["\n", "\n\n", "\r\n", " "]),
)

_b64 = st.binary(max_size=3000).map(lambda b: base64.b64encode(b).decode())
blocks = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, prose | st.builds(lambda v: json.dumps(v), json_values)),
    st.builds(lambda d: {"type": "image", "data": d, "mimeType": "image/png"}, _b64),
    st.builds(lambda d: {"type": "audio", "data": d, "mimeType": "audio/wav"}, _b64),
    st.builds(
        lambda t: {"type": "resource", "resource": {"uri": "file:///r.txt", "mimeType": "text/plain", "text": t}}, prose
    ),
    st.builds(
        lambda d: {"type": "resource", "resource": {"uri": "file:///r.bin", "mimeType": "application/zip", "blob": d}},
        _b64,
    ),
    st.builds(
        lambda n: {"type": "resource_link", "uri": f"file:///docs/{n}.md", "name": n or "doc"},
        st.text(alphabet="abcdefghij-_", max_size=12),
    ),
)


def _call_result(content: list[dict[str, Any]], is_error: bool, structured: str, form: str) -> Any:
    result: dict[str, Any] = {"content": content, "isError": is_error}
    texts = [b["text"] for b in content if b["type"] == "text"]
    if structured == "mirror" and texts:
        result["structuredContent"] = {"result": "\n".join(texts)}
    elif structured == "other":
        result["structuredContent"] = {"note": "not the same as the text", "n": len(content)}
    if form == "object" and mcp_types is not None:
        return mcp_types.CallToolResult.model_validate(result)
    if form == "blocks":
        return content
    return result


call_results = st.builds(
    _call_result,
    st.lists(blocks, max_size=6),
    st.booleans(),
    st.sampled_from(["none", "mirror", "other"]),
    st.sampled_from(["dict", "object", "blocks"]),
)

_SETTINGS: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": [
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
        HealthCheck.large_base_example,
    ],
}


# -- properties ---------------------------------------------------------------------------------------------


@settings(max_examples=300, **_SETTINGS)
@given(data=json_inputs, policy=policies, tool=tools)
def test_json_input_fits_and_stays_json(
    spill_root: Path, data: tuple[Any, str], policy: Policy, tool: str | None
) -> None:
    value, form = data
    policy = policy.replace(spill_dir=spill_root / "json")
    res = shape(_as_input(value, form), policy=policy, tool=tool, args={"form": form})
    assert_budgeted(res, policy, tool)
    if form == "python" and isinstance(value, str):
        return  # a Python str is text, not JSON
    if res.changed or form in ("python", "fastmcp", "structured"):
        strict_json(res.text)  # the answer is JSON a strict parser accepts
    else:
        json.loads(res.text)  # the host's own text, left as it was


@settings(max_examples=150, **_SETTINGS)
@given(text=prose, policy=policies, tool=tools)
def test_prose_fits(spill_root: Path, text: str, policy: Policy, tool: str | None) -> None:
    policy = policy.replace(spill_dir=spill_root / "prose")
    res = shape(text, policy=policy, tool=tool)
    assert_budgeted(res, policy, tool)
    if res.changed and res.truncated and not res.is_json and res.strategy == "text":
        assert res.text.rsplit("\n", 1)[-1].startswith("[hostshape]")


@settings(max_examples=150, **_SETTINGS)
@given(raw=call_results, policy=policies, tool=tools)
def test_mcp_content_block_mixes_fit(spill_root: Path, raw: Any, policy: Policy, tool: str | None) -> None:
    policy = policy.replace(spill_dir=spill_root / "blocks")
    res = shape(raw, policy=policy, tool=tool, server="srv")
    assert_budgeted(res, policy, tool)
    is_error = raw.isError if hasattr(raw, "isError") else isinstance(raw, dict) and raw["isError"]
    assert res.is_error == bool(is_error)


@settings(max_examples=80, **_SETTINGS)
@given(raw=st.one_of(json_inputs.map(lambda d: _as_input(*d)), prose, call_results), policy=policies, tool=tools)
def test_same_input_and_policy_give_identical_text(
    spill_root: Path, raw: Any, policy: Policy, tool: str | None
) -> None:
    policy = policy.replace(spill_dir=spill_root / "determinism")
    first = shape(raw, policy=policy, tool=tool, args={"page": 1})
    again = shape(raw, policy=policy.replace(), tool=tool, args={"page": 1})  # an equal, separate policy object
    assert first.text == again.text
    assert first.handle == again.handle


@settings(max_examples=25, **_SETTINGS)
@given(value=json_values, budget=st.integers(16, 20_000))
def test_shaping_the_answer_again_changes_nothing_or_still_fits(spill_root: Path, value: Any, budget: int) -> None:
    policy = Policy(budget=budget, spill_dir=spill_root / "again")
    res = shape(value, policy=policy)
    again = shape(res.text, policy=policy)
    assert_budgeted(again, policy)
    assert not again.changed or again.strategy == "compact"


def test_same_input_and_policy_give_identical_text_across_processes(tmp_path: Path) -> None:
    """A host restarted (another process, another hash seed) must send the same bytes, or prompt caches miss."""
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "import hostshape\n"
        "from hostshape import Policy, shape\n"
        "payloads = sorted((Path(hostshape.__file__).parent / 'examples' / 'payloads').iterdir())\n"
        "noisy = [{'id': i, **{f'k{j}_url': 'https://api.x/' for j in range(30)}, 'node_id': 'x',"
        " 'user': {'login': 'u', 'avatar_url': 'a'}, 'body': 'b ' * 400} for i in range(200)]\n"
        "inputs = [p.read_text(errors='replace') for p in payloads] + [noisy, {'a': noisy, 'b': [1] * 5000}]\n"
        "out = [shape(raw, policy=Policy(budget=b, spill_dir=Path(sys.argv[1])), tool='t', args={'b': b}).text\n"
        "       for raw in inputs for b in (300, 2000)]\n"
        "sys.stdout.write(json.dumps(out))\n"
    )
    runs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script, str(tmp_path / "spill")],
            capture_output=True,
            text=True,
            check=False,
            env=env,
            cwd=Path(__file__).resolve().parent.parent,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(json.loads(done.stdout))
    assert len(runs[0]) >= 20 and runs[0] == runs[1]


# -- named bad inputs ---------------------------------------------------------------------------------------


def test_ten_thousand_deep_json_array_text_is_labelled_and_budgeted(policy: Policy) -> None:
    res = shape("[" * 10_000 + "]" * 10_000, policy=policy)
    assert_budgeted(res, policy)
    assert res.changed
    assert any("nesting too deep" in note for note in envelope_of(res)["notes"])


def test_ten_thousand_deep_json_object_text_is_labelled_and_budgeted(policy: Policy) -> None:
    res = shape('{"a":' * 10_000 + "1" + "}" * 10_000, policy=policy)
    assert_budgeted(res, policy)
    assert "nesting too deep" in json.dumps(envelope_of(res))


def test_ten_thousand_deep_python_value_never_raises(policy: Policy) -> None:
    value: list[Any] = []
    for _ in range(10_000):
        value = [value]
    res = shape(value, policy=policy)
    assert_budgeted(res, policy)
    assert res.changed and "nest" in res.text


def test_five_hundred_deep_json_that_parses_is_still_shaped(policy: Policy) -> None:
    res = shape("[" * 500 + '"' + "x" * 5_000 + '"' + "]" * 500, policy=policy)
    assert_budgeted(res, policy)
    assert res.changed


def test_fifty_megabyte_string(policy: Policy) -> None:
    raw = "lorem ipsum dolor sit amet.\n" * (50_000_000 // 28)
    res, seconds = timed(raw, policy)
    assert_budgeted(res, policy)
    assert res.changed and res.truncated and res.handle
    last = res.text.rsplit("\n", 1)[-1]
    assert last.startswith("[hostshape] truncated:") and f"of {len(raw):,})" in last
    report_if_slow("50 MB string", seconds)


def test_fifty_megabyte_json_array(policy: Policy) -> None:
    raw = json.dumps([{"id": i, "title": f"item {i}", "body": "text " * 20} for i in range(380_000)])
    assert len(raw) > 50_000_000
    res, seconds = timed(raw, policy, tool="list_things")
    assert_budgeted(res, policy)
    env = envelope_of(res)
    assert env["truncated"] is True and env["total"] == 380_000 and env["handle"] == res.handle
    report_if_slow("50 MB JSON array", seconds)


def _in_a_notebook_output(text: str) -> str:
    cell = {"cell_type": "code", "source": ["train()"], "metadata": {}, "execution_count": 1}
    cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": [text]}]
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


@pytest.mark.parametrize("where", ["a notebook cell output", "a plain JSON object"])
@pytest.mark.parametrize("budget", [5, 500])
def test_one_huge_string_is_rendered_about_once_whatever_the_budget(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, where: str, budget: int
) -> None:
    """Work, not wall time: every step rendered the whole value again (12 to 19 times its size at budget 5); a
    string no answer can show whole is cut to a prefix before the fit, so the JSON rendered stays near one pass
    (the compact form), at any size well past the floor of 262,144 characters (8 MB here, as for 50 MB)."""
    huge = 'say "hi"\t\\ ' * 700_000  # 8 MB, escapes in every piece
    raw = _in_a_notebook_output(huge) if where == "a notebook cell output" else json.dumps({"id": "x", "log": huge})
    rendered = [0]
    real = orjson.dumps

    def counting(*args: Any, **kwargs: Any) -> bytes:
        out = real(*args, **kwargs)
        rendered[0] += len(out)
        return out

    monkeypatch.setattr(orjson, "dumps", counting)
    policy = Policy(budget=budget, spill_dir=tmp_path / "spill")
    res = shape(raw, policy=policy, tool="run")
    assert_budgeted(res, policy, "run")
    assert rendered[0] <= 3 * len(raw), f"rendered {rendered[0] / len(raw):.1f} times the input"
    if budget >= 500 and where == "a plain JSON object":  # the cut says how long the whole string is
        assert envelope_of(res)["truncated"] is True
        shown: str = assert_json(res)["log"]
        head, cut = shown.split("…[+")
        assert huge.startswith(head) and int(cut.removesuffix(" chars]").replace(",", "")) == len(huge) - len(head)


def test_broken_utf8_bytes_are_replaced_and_labelled(policy: Policy) -> None:
    small = shape(b"status: ok \xff\xfe then \xc3 cut", policy=policy)
    assert_budgeted(small, policy)
    assert small.text == "status: ok \ufffd\ufffd then \ufffd cut"
    res = shape(b"status: ok \xff\xfe then \xc3 cut\n" * 5_000, policy=policy)
    assert_budgeted(res, policy)
    assert res.changed and "\ufffd" in res.text and "invalid UTF-8" in res.text.rsplit("\n", 1)[-1]


def test_broken_utf8_inside_json_bytes_stays_json(policy: Policy) -> None:
    res = shape(b'{"name": "caf\xe9", "ok": true}', policy=policy)
    assert_budgeted(res, policy)
    assert strict_json(res.text) == {"name": "caf\ufffd", "ok": True}


def test_lone_surrogate_json_escape(policy: Policy) -> None:
    small = shape('{"a": "\\ud800"}', policy=policy)
    assert_budgeted(small, policy)
    assert not small.changed  # fits: the host's own text goes through
    big = shape(json.dumps([{"id": i, "s": "\ud800 tail"} for i in range(2_000)]), policy=policy)
    assert_budgeted(big, policy)
    assert big.changed and strict_json(big.text)


def test_lone_surrogate_python_str_never_reaches_the_model(policy: Policy) -> None:
    for raw in ("\ud800 x", ["\udfff"] * 3_000, {"k\ud800": "v" * 5_000}):
        res = shape(raw, policy=policy)
        assert_budgeted(res, policy)  # includes res.text.encode("utf-8")


@pytest.mark.skipif(mcp_types is None, reason="needs the MCP SDK")
def test_sdk_result_object_with_a_lone_surrogate_key_is_shaped(policy: Policy) -> None:
    sizes = {"dir": {f"report-{i}-\udcff.txt": i for i in range(2_000)}}
    raw = mcp_types.CallToolResult.model_validate({"content": [], "structuredContent": sizes})
    res = shape(raw, policy=policy)
    assert_budgeted(res, policy)
    assert res.changed


def test_lone_surrogate_becomes_the_replacement_character(policy: Policy) -> None:
    res = shape(["\ud800 x"] * 3_000, policy=policy)
    assert "\ufffd x" in res.text


def test_nan_and_infinity_literals(policy: Policy) -> None:
    small = shape('{"a": NaN, "b": Infinity, "c": -Infinity}', policy=policy)
    assert_budgeted(small, policy)
    assert not small.changed
    big = shape("[" + ",".join(["NaN", "Infinity", "-Infinity", "1.5"] * 2_000) + "]", policy=policy)
    assert_budgeted(big, policy)
    items = strict_json(big.text)["items"]  # refuses NaN: the answer is real JSON
    assert items[:4] == ["NaN", "Infinity", "-Infinity", 1.5]
    py = shape([float("nan"), float("inf")] * 2_000, policy=policy)
    assert_budgeted(py, policy)
    strict_json(py.text)


def test_five_thousand_digit_integer_that_fits_passes_through(policy: Policy) -> None:
    raw = '{"n": ' + "7" * 5_000 + "}"
    big_budget = policy.replace(budget=4_000)
    res = shape(raw, policy=big_budget)
    assert_budgeted(res, big_budget)
    assert not res.changed and res.text == raw


def test_five_thousand_digit_integer_is_cut_and_labelled_as_a_number(policy: Policy) -> None:
    res = shape('{"n": ' + "7" * 5_000 + ', "id": 1}', policy=policy)
    assert_budgeted(res, policy)
    data = strict_json(res.text)
    assert data["id"] == 1
    assert "base64" not in res.text and str(data["n"]).startswith("777")


def test_five_thousand_digit_python_int_never_raises(policy: Policy) -> None:
    res = shape({"n": 10**5_000, "id": 1}, policy=policy)
    assert_budgeted(res, policy)
    assert res.changed


def test_byte_order_mark(policy: Policy) -> None:
    small = shape('\ufeff{"a": 1}', policy=policy)
    assert_budgeted(small, policy)
    assert not small.changed
    for raw in ("\ufeff" + json.dumps(list(range(5_000))), b"\xef\xbb\xbf" + json.dumps(list(range(5_000))).encode()):
        res = shape(raw, policy=policy)
        assert_budgeted(res, policy)
        assert res.changed and not res.text.startswith("\ufeff")
        assert strict_json(res.text)["items"][:3] == [0, 1, 2]


def test_byte_order_mark_before_a_json_string_keeps_it_json(policy: Policy) -> None:
    raw = "\ufeff" + json.dumps("a long JSON string value " * 400)
    res = shape(raw, policy=policy)
    assert_budgeted(res, policy)
    assert res.changed and strict_json(res.text)


def test_trailing_garbage_after_json_is_labelled(policy: Policy) -> None:
    small = shape('{"a": 1} trailing', policy=policy)
    assert_budgeted(small, policy)
    assert not small.changed
    res = shape(json.dumps(list(range(5_000))) + " <html>trailing garbage</html>", policy=policy)
    assert_budgeted(res, policy)
    assert "not valid JSON" in " ".join(envelope_of(res)["notes"])


def test_duplicate_keys_last_one_wins(policy: Policy) -> None:
    raw = '{"state": "draft", "state": "open", "items": ' + json.dumps([{"id": i} for i in range(3_000)]) + "}"
    res = shape(raw, policy=policy)
    assert_budgeted(res, policy)
    data = strict_json(res.text)
    assert data["state"] == "open" and data["_hostshape"]["total"] == 3_000


def test_png_bytes_become_a_labelled_placeholder(policy: Policy) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 400
    res = shape(png, policy=policy)
    assert_budgeted(res, policy)
    assert res.changed and f"image/png, {len(png):,} bytes" in res.text and "\x00" not in res.text


def test_base64_blob_inside_json_is_omitted_and_labelled(policy: Policy) -> None:
    blob = base64.b64encode(bytes(range(256)) * 2_000).decode()
    res = shape({"name": "logo.png", "sha": "abc123", "content": blob}, policy=policy)
    assert_budgeted(res, policy)
    data = strict_json(res.text)
    assert data["name"] == "logo.png" and data["sha"] == "abc123"
    assert data["content"] == f"[base64 omitted: {len(blob):,} chars]"


@pytest.mark.parametrize("raw", [[], {}, {"content": []}], ids=["list", "dict", "blocks"])
def test_empty_json_passes_through(policy: Policy, raw: Any) -> None:
    res = shape(raw, policy=policy)
    assert_budgeted(res, policy)
    assert not res.changed and len(res.text) <= 14


@pytest.mark.parametrize("raw", ["", b"", "  \n", {"content": [{"type": "text", "text": ""}]}])
def test_a_result_with_no_content_is_named_never_an_empty_page(policy: Policy, raw: Any) -> None:
    res = shape(raw, policy=policy)
    assert_budgeted(res, policy)
    assert res.changed and res.text == "[hostshape] the tool returned no content (an empty result)"
    error = shape({"content": [], "isError": True}, policy=policy)
    assert error.text == "[hostshape] the tool reported an error with no message"


def test_none_passes_through_as_null(policy: Policy) -> None:
    res = shape(None, policy=policy)
    assert_budgeted(res, policy)
    assert not res.changed and res.text == "null"


def test_small_error_result_passes_through_unchanged(policy: Policy) -> None:
    raw = {"content": [{"type": "text", "text": "Error: repository not found"}], "isError": True}
    res = shape(raw, policy=policy, tool="list_things")
    assert_budgeted(res, policy)
    assert not res.changed and res.is_error and res.text == "Error: repository not found"


def test_huge_error_result_is_budgeted_and_says_it_is_an_error(policy: Policy) -> None:
    trace = "Traceback (most recent call last):\n" + '  File "x.py", line 1, in f\n' * 20_000 + "ValueError: boom"
    res = shape({"content": [{"type": "text", "text": trace}], "isError": True}, policy=policy, tool="list_things")
    assert_budgeted(res, policy)
    assert res.changed and res.is_error and res.truncated
    assert "the tool reported an error" in res.text.rsplit("\n", 1)[-1]


def test_image_only_content_becomes_a_placeholder(policy: Policy) -> None:
    data = base64.b64encode(b"\x89PNG" + bytes(30_000)).decode()
    res = shape({"content": [{"type": "image", "data": data, "mimeType": "image/png"}]}, policy=policy)
    assert_budgeted(res, policy)
    assert "[image omitted: image/png," in res.text and data[:100] not in res.text


def test_image_only_content_is_not_called_invalid_json(policy: Policy) -> None:
    data = base64.b64encode(b"\x89PNG" + bytes(30_000)).decode()
    res = shape({"content": [{"type": "image", "data": data, "mimeType": "image/png"}]}, policy=policy)
    assert "not valid JSON" not in res.text


def test_json_text_with_an_image_block_stays_json(policy: Policy) -> None:
    text = json.dumps([{"id": i, "title": f"shot {i}"} for i in range(1_000)])
    image = {"type": "image", "data": base64.b64encode(b"\x89PNG" + bytes(3_000)).decode(), "mimeType": "image/png"}
    res = shape({"content": [{"type": "text", "text": text}, image]}, policy=policy)
    assert_budgeted(res, policy)
    assert "not valid JSON" not in res.text and envelope_of(res)["total"] == 1_000


def test_resource_link_only(policy: Policy) -> None:
    raw = {"content": [{"type": "resource_link", "uri": "file:///repo/README.md", "name": "README.md"}]}
    res = shape(raw, policy=policy)
    assert_budgeted(res, policy)
    assert "file:///repo/README.md" in res.text


@pytest.mark.parametrize(
    "tool, args",
    [
        ("../../../etc/passwd", {"path": "../../../../tmp/evil"}),
        ("a\x00b", {"k\x00": "v\x00../"}),
        ("/abs/tool", {"path": "/etc/shadow"}),
        ("..", {"..": ".."}),
        ("x" * 5_000, {"y" * 5_000: "z"}),
    ],
    ids=["dotdot", "nul", "absolute", "bare-dotdot", "long"],
)
def test_tool_name_and_arguments_cannot_escape_the_spill_dir(tmp_path: Path, tool: str, args: dict[str, str]) -> None:
    spill_dir = tmp_path / "nest" / "spill"
    policy = Policy(budget=200, spill_dir=spill_dir)
    res = shape("line of output\n" * 5_000, policy=policy, tool=tool, args=args)
    assert_budgeted(res, policy)
    assert res.handle and res.path and Path(res.path).parent == spill_dir
    assert Path(res.path).read_text() == "line of output\n" * 5_000
    outside = [p for p in tmp_path.rglob("*") if spill_dir not in (p, *p.parents) and p != spill_dir.parent]
    assert outside == []
    assert "\x00" not in res.text


@pytest.mark.parametrize("budget", [1, 2, 5])
@pytest.mark.parametrize("kind", ["json", "text", "error"])
def test_budget_smaller_than_any_envelope(tmp_path: Path, budget: int, kind: str) -> None:
    policy = Policy(budget=budget, spill_dir=tmp_path / "spill")
    raw: Any = {
        "json": list(range(1_000)),
        "text": "word " * 1_000,
        "error": {"content": [{"type": "text", "text": "failure " * 1_000}], "isError": True},
    }[kind]
    res = shape(raw, policy=policy)
    assert_budgeted(res, policy)
    assert res.changed and res.truncated and res.text
    if kind == "json":
        json.loads(res.text)
    if kind != "json" and budget >= 5:
        assert res.text == "[hostshape] truncated"


def test_a_short_answer_keeps_its_label_when_the_full_envelope_does_not_fit(policy: Policy) -> None:
    res = shape(b"\x89PNG\r\n\x1a\n" + bytes(5_000), policy=policy.replace(budget=40))
    assert_budgeted(res, policy.replace(budget=40))
    assert "image/png" in res.text


@pytest.mark.parametrize("budget", [5, 6, 7])
def test_tiny_budget_json_answer_says_it_was_cut(tmp_path: Path, budget: int) -> None:
    res = shape(list(range(1_000)), policy=Policy(budget=budget, spill_dir=tmp_path / "spill"))
    assert "truncated" in res.text


def test_wide_object_keeps_some_members_and_says_how_many(policy: Policy) -> None:
    res = shape({f"package-{i}": f"^{i}.0.0" for i in range(2_000)}, policy=policy)
    assert_budgeted(res, policy)
    assert res.strategy != "minimal" and "package-0" in res.text


def test_escape_heavy_string_keeps_some_content(policy: Policy) -> None:
    res = shape({"id": 7, "log": "\x1b[0m" * 20_000}, policy=policy)
    assert_budgeted(res, policy)
    assert res.strategy != "minimal" and strict_json(res.text)["id"] == 7


class _Unprintable:
    def __str__(self) -> str:
        raise ValueError("no str")

    __repr__ = __str__


def test_object_whose_str_raises_never_escapes_shape(policy: Policy) -> None:
    res = shape(_Unprintable(), policy=policy)
    assert res.text


def test_fault_with_on_fault_refuse_is_a_budgeted_refusal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("injected")

    monkeypatch.setattr("hostshape.pipeline.project", boom)
    for budget in (16, 100):
        policy = Policy(budget=budget, on_fault="refuse", spill_dir=tmp_path / "spill")
        res = shape(list(range(5_000)), policy=policy)
        assert res.changed and res.fault and "RuntimeError" in res.fault
        assert count_tokens(res.text) <= budget
    assert "Remedy" in res.text
    passing = shape(list(range(5_000)), policy=policy.replace(on_fault="pass"))
    assert not passing.changed and passing.fault


def test_every_named_input_with_the_claude_safety_factor(tmp_path: Path) -> None:
    """The named inputs again, with a 1.3 safety factor, a character cap and cl100k: the cap is still absolute."""
    policy = Policy(budget=300, safety_factor=1.3, max_chars=900, encoding="cl100k_base", spill_dir=tmp_path / "s")
    inputs: list[Any] = [
        "[" * 10_000 + "]" * 10_000,
        b"\xff\xfe" * 5_000,
        '{"a": "\\ud800"}' * 10,
        "[NaN, Infinity]" * 300,
        "\ufeff" + json.dumps(list(range(3_000))),
        json.dumps(list(range(3_000))) + "garbage",
        b"\x89PNG" + bytes(5_000),
        {"content": [{"type": "text", "text": "e " * 5_000}], "isError": True},
        "",
        None,
    ]
    for raw in inputs:
        assert_budgeted(shape(raw, policy=policy, tool="../x\x00"), policy)


def test_a_jmespath_rule_that_fails_at_run_time_still_gives_a_budgeted_answer(tmp_path: Path) -> None:
    policy = Policy(
        budget=500, spill_dir=tmp_path / "spill", rules=(Rule(tool="list_issues", jmespath="sort_by(@, &closed_at)"),)
    )
    issues = [
        {
            "number": i,
            "title": f"issue {i}",
            "closed_at": None if i % 7 == 0 else f"2024-01-{i % 28 + 1:02d}",
            "body": "details " * 40,
        }
        for i in range(300)
    ]
    res = shape(issues, policy=policy, tool="list_issues")
    assert_budgeted(res, policy, "list_issues")
    assert res.changed


def test_a_character_cap_smaller_than_any_envelope(tmp_path: Path) -> None:
    policy = Policy(budget=500, max_chars=1, spill_dir=tmp_path / "spill")
    res = shape(list(range(1_000)), policy=policy)
    assert len(res.text) <= 1


# -- the way back: read() answers anything the model sends, within the budget ---------------------------------


@pytest.fixture(scope="module")
def saved_handle(spill_root: Path) -> tuple[Policy, str, str]:
    policy = Policy(budget=400, spill_dir=spill_root / "read", retrieval_tool="hostshape_read")
    res = shape([{"id": i, "title": f"item {i}", "body": "text " * 30} for i in range(300)], policy=policy, tool="t")
    assert res.handle
    return policy, res.handle, json.loads(res.text)["_hostshape"]["next"]


@settings(max_examples=120, **_SETTINGS)
@given(data=st.data(), budget=st.integers(200, 20_000))
def test_read_never_raises_and_answers_within_the_budget(
    saved_handle: tuple[Policy, str, str], data: Any, budget: int
) -> None:
    policy, handle, cursor = saved_handle
    words = st.text(max_size=100)
    h = data.draw(st.sampled_from([handle, "hs_" + "0" * 24, "../../etc/passwd", ""]) | words, label="handle")
    q = data.draw(
        st.sampled_from(
            [
                "",
                "[*].id",
                "[?id > `250`]",
                "sort_by(@, &title)",
                "[0].nope",
                "length(@)",
                "[*].body | [0]",
                "`1`",
                "[",
                "to_number(@)",
            ]
        )
        | words,
        label="query",
    )
    c = data.draw(st.sampled_from(["", cursor, cursor[:-3], cursor + "A"]) | words, label="cursor")
    answer = read(h, query=q, cursor=c, policy=policy.replace(budget=budget))
    assert isinstance(answer, str) and answer
    answer.encode("utf-8")
    assert count_tokens(answer) <= budget


def test_read_does_not_echo_a_huge_handle_past_the_budget(saved_handle: tuple[Policy, str, str]) -> None:
    policy, _, _ = saved_handle
    answer = read("x" * 100_000, policy=policy)
    assert count_tokens(answer) <= policy.budget


def test_read_answer_to_a_query_with_a_lone_surrogate_is_utf8(saved_handle: tuple[Policy, str, str]) -> None:
    policy, handle, _ = saved_handle
    read(handle, query="[?title == '\ud800']x\ud800", policy=policy).encode("utf-8")

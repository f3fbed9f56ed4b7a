"""A long fuzz run of the core (issue 9): random inputs, random policies, the core's promises checked on each.

    python bench/fuzz.py --seconds 600            # about ten minutes; prints the count and the result
    python bench/fuzz.py --seed 7 --case 1234     # replay one case (prints its input summary and outcome)

Not part of the test suite. Every case is generated from ``(seed, case number)`` alone, so any failure it prints can
be replayed exactly. Inputs mix JSON (deep, wide, unicode, huge strings, NaN, 5,000-digit integers, duplicate keys,
byte-order marks, trailing garbage), prose, bytes (broken UTF-8, PNG), and MCP results (text, image, audio,
resource and resource_link blocks, structuredContent, isError) in both dict and SDK-object form; tool names and
arguments carry ``../``, NUL and lone surrogates. Policies vary the budget (1 to 20,000 tokens), the encoding, the
safety factor, a character cap, per-tool rules, the fault behaviour and the spill bound.

Issue 17 added: long runs of one character (newlines, blanks, digits, brackets, quotes; alone or before JSON),
Python data with keys that are not strings (integers, None, tuples, floats, booleans), escape-heavy text inside
Claude Code's ``{"result": ...}`` wrapper, and model-written JMESPath queries (doubling multi-selects, nested
projections, sort/join/to_string over everything) sent to ``hostshape_read`` on the case's saved result.

Checked for every case: ``shape`` returns (never raises) and does not fault; the exact text is UTF-8 and fits the
tool's budget (``count_tokens(text) <= floor(budget / safety_factor)``, and the character cap); a changed answer
to JSON input is strict JSON; a spilled file is a regular file named by its handle inside the spill folder. Every
fifth case is shaped twice: the text must be identical. Every answer of ``hostshape_read`` is UTF-8 and fits the
budget, and a query answers within ``SLOW_READ_S`` seconds; a shaping call over ``SLOW_SHAPE_S`` is noted.

Output: one line per failure kind (with a replay command), then ``fuzz: <count> cases ... <result>``. Exit status 0
when nothing failed.
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import multiprocessing as mp
import os
import random
import re
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextlib

from hostshape import Policy, Rule, shape
from hostshape.tokens import count_tokens
from hostshape.wayback.retrieve import read

_HANDLE_FILE = re.compile(r"^hs_[0-9a-f]{24}\.(json|txt)$")
# Failure signatures already pinned by xfail(strict=True) tests: (text in the failure detail, the test).
KNOWN = (("input starts '\\ufeff\"", "test_robustness.py::test_byte_order_mark_before_a_json_string_keeps_it_json"),)
NOTICE = "notice:"  # a failure kind starting with this is reported but is no broken promise
_WRAPPER_KEYS = {"result", "structuredContent", "content", "type", "output", "isError"}
_PIECES = [
    "x",
    "word ",
    "漢字かな",
    "😀",
    '"',
    "\\",
    "\n",
    "\t",
    "\x01",
    "é",
    "\u200b",
    "<p>",
    "ab cd. ",
    "\x00",
    "\u202e",
    "\ufeff",
    "\r\n",
    "9",
]
_RULES = (
    Rule(tool="jp", jmespath="[*].{id: id, title: title}"),
    Rule(tool="jp_items", jmespath="items[?state=='open']"),
    Rule(tool="fields", fields=("id", "title", "user.login"), rename={"user.login": "author"}),
    Rule(tool="small", budget=48),
    Rule(tool="raw", shrink=False),
)
SLOW_READ_S = 10.0  # a query stopped by its own 2 s limit answers well within this, even on a loaded machine
SLOW_SHAPE_S = 5.0
_RUNS = ["\n", " ", "\t", "a", "0", "9", "{", "[", '"', "\\", "\x00", "é", "😀", "\r\n", "-", ",", "ab", "\u200b"]
_QUERY_PIECES = [
    "@",
    "[*]",
    "[]",
    "{a:@,b:@}",
    "[@,@]",
    "[@,@,@,@,@,@,@,@]",
    "items",
    "data",
    "[?id > `5`]",
    "sort_by(@, &id)",
    "sort_by(@, &title)",
    "to_string(@)",
    "length(@)",
    "join(',', [*].title)",
    "[0]",
    "[::-1]",
    "keys(@)",
    "values(@)",
    "merge(@, @)",
    "*",
    "title",
    "map(&[@,@], @)",
    "reverse(@)",
    "not_null(@)",
    "[*][*][*]",
    "[].[*].[*]",
    "{x: @, y: [@, @], z: {a: @}}",
    "[?@ == @]",
    "contains(to_string(@), 'x')",
    "max_by(@, &id)",
    "[?title != `null`]",
    "sum([*].id)",
]
_TOOLS = [
    None,
    "list_things",
    "jp",
    "jp_items",
    "fields",
    "small",
    "raw",
    "../../etc/passwd",
    "a\x00b",
    "\ud800x",
    "x" * 300,
    "/abs",
    "hs_000000000000000000000000",
]


# -- generators ---------------------------------------------------------------------------------------------


class Gen:
    """Random inputs from one ``random.Random``; each method returns a value, the others build on it."""

    def __init__(self, rng: random.Random) -> None:
        self.r = rng

    def string(self) -> str:
        r = self.r
        roll = r.random()
        if roll < 0.55:
            return "".join(r.choice(_PIECES) for _ in range(r.randint(0, 12)))
        if roll < 0.93:
            return "".join(
                chr(
                    r.choice(
                        [r.randint(32, 126), r.randint(0xA0, 0x2FFF), r.randint(0x1F300, 0x1FAFF), r.randint(0, 31)]
                    )
                )
                for _ in range(r.randint(0, 60))
            )
        if roll < 0.985:
            return r.choice(_PIECES) * r.randint(100, 20_000)
        return "\ud800" + r.choice(_PIECES)  # a lone surrogate in a Python str

    def scalar(self) -> Any:
        r = self.r
        roll = r.random()
        if roll < 0.1:
            return None
        if roll < 0.2:
            return r.random() < 0.5
        if roll < 0.4:
            return r.randint(-(2**40), 2**40) if r.random() < 0.9 else r.randint(-(2**90), 2**90)
        if roll < 0.5:
            return r.uniform(-1e12, 1e12) if r.random() < 0.95 else r.choice([1e308, -0.0, 5e-324])
        if roll < 0.5003:
            return 10 ** r.randint(4_400, 5_000)  # more digits than Python will print by default
        return self.string()

    def key(self) -> str:
        while True:
            k = (
                self.string()[:20]
                if self.r.random() < 0.3
                else self.r.choice(
                    [
                        "id",
                        "number",
                        "title",
                        "name",
                        "state",
                        "body",
                        "user",
                        "login",
                        "sha",
                        "items",
                        "data",
                        "url",
                        "html_url",
                        "node_id",
                        "_links",
                        "avatar_url",
                        "ref",
                        "head",
                        "base",
                        "labels",
                        "k",
                    ]
                )
                + (str(self.r.randint(0, 30)) if self.r.random() < 0.3 else "")
            )
            if k not in _WRAPPER_KEYS:
                return k

    def value(self, depth: int = 0) -> Any:
        r = self.r
        if depth > 5 or r.random() < 0.3:
            return self.scalar()
        if r.random() < 0.5:
            return [self.value(depth + 1) for _ in range(r.randint(0, 8))]
        return {self.key(): self.value(depth + 1) for _ in range(r.randint(0, 8))}

    def record(self, i: int) -> dict[str, Any]:
        r = self.r
        rec = {
            "id": i,
            "number": i + 1,
            "title": f"record {i} " + self.string()[:40],
            "state": r.choice(["open", "closed"]),
            "body": self.string() if r.random() < 0.7 else None,
            "user": {
                "login": f"user{r.randint(0, 50)}",
                "id": r.randint(0, 10**6),
                "url": "https://api.github.com/u",
                "avatar_url": "https://avatars.example/u",
            },
            "html_url": f"https://github.example/o/r/{i}",
            "node_id": "N_" + "x" * 16,
        }
        if r.random() < 0.3:
            rec["extra"] = self.value(3)
        return rec

    def json_value(self) -> Any:
        r = self.r
        roll = r.random()
        if roll < 0.35:
            return self.value()
        if roll < 0.65:
            recs = [self.record(i) for i in range(r.choice([0, 1, 3, 20, 100, 400, 2_000]))]
            at = r.choice([None, None, "items", "commits", "data"])
            return recs if at is None else {"total_count": len(recs), at: recs}
        if roll < 0.75:  # deep
            v: Any = self.scalar()
            for _ in range(r.choice([10, 100, 250, 300, 600, 1_100, 3_000])):
                v = [v] if r.random() < 0.5 else {"a": v}
            return v
        if roll < 0.85:  # wide
            return {f"k{i}": self.scalar() for i in range(r.choice([50, 300, 2_000, 10_000]))}
        if roll < 0.92:  # a file with base64 content
            blob = base64.b64encode(
                os.urandom(r.randint(100, 60_000)) if r.random() < 0.5 else self.string().encode("utf-8", "replace")
            ).decode()
            return {"name": "f.bin", "path": "a/f.bin", "sha": "deadbeef", "encoding": "base64", "content": blob}
        return [self.scalar() for _ in range(r.randint(0, 5_000))]

    def json_text(self, value: Any) -> str:
        """``value`` as JSON text, whatever its depth or integer sizes (the generator's limits, not the core's)."""
        r = self.r
        ensure_ascii, indent = r.random() < 0.3, r.choice([None, None, 2])
        digits, depth = sys.get_int_max_str_digits(), sys.getrecursionlimit()
        sys.set_int_max_str_digits(0)
        sys.setrecursionlimit(max(depth, 20_000))
        try:
            return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, default=str)
        finally:
            sys.set_int_max_str_digits(digits)
            sys.setrecursionlimit(depth)

    def prose(self) -> str:
        r = self.r
        lines = []
        for _ in range(r.randint(0, 200)):
            roll = r.random()
            if roll < 0.05:
                lines.append("data:image/png;base64," + "QUJD" * r.randint(20, 500))
            elif roll < 0.1:
                lines.append("https://t.example/c?u=" + "z" * r.randint(100, 800))
            elif roll < 0.2:
                lines.append("")
            else:
                lines.append(self.string()[:500])
        text = r.choice(["\n", "\n\n", " ", "\r\n"]).join(lines)
        return text * r.choice([1, 1, 1, 3, 20, 100])

    def nasty_json_text(self) -> tuple[str, bool]:
        """A JSON-ish text that strict parsers refuse; the bool says whether it is still JSON to the core."""
        r = self.r
        base = self.json_text(self.json_value())
        kind = r.randrange(7)
        if kind == 0:
            return "\ufeff" + base, True
        if kind == 1:
            return base + r.choice([" garbage", "\n{}", "]", "\x00"]), False
        if kind == 2:
            return "[" + ",".join(
                r.choice(["NaN", "Infinity", "-Infinity", "1"]) for _ in range(r.randint(1, 3_000))
            ) + "]", True
        if kind == 3:
            return '{"n": ' + "7" * r.randint(4_000, 6_000) + ', "id": 1}', True
        if kind == 4:
            return '{"a": 1, "a": 2, "items": ' + base + "}", True
        if kind == 5:
            return json.dumps([{"id": i, "s": "\ud800"} for i in range(r.randint(1, 2_000))]), True
        return r.choice("[{") * r.randint(1, 20_000), False

    def block(self) -> dict[str, Any]:
        r = self.r
        kind = r.randrange(7)
        if kind <= 1:
            text = self.json_text(self.json_value()) if r.random() < 0.5 else self.prose()
            return {"type": "text", "text": text}
        data = base64.b64encode(os.urandom(r.randint(0, 20_000))).decode()
        if kind == 2:
            return {"type": "image", "data": data, "mimeType": r.choice(["image/png", "image/jpeg"])}
        if kind == 3:
            return {"type": "audio", "data": data, "mimeType": "audio/wav"}
        if kind == 4:
            return {
                "type": "resource",
                "resource": {"uri": "file:///r.txt", "mimeType": "text/plain", "text": self.prose()},
            }
        if kind == 5:
            return {
                "type": "resource",
                "resource": {"uri": "file:///r.bin", "mimeType": "application/zip", "blob": data},
            }
        return {"type": "resource_link", "uri": "file:///docs/a.md", "name": "a.md"}

    def call_result(self) -> Any:
        r = self.r
        content = [self.block() for _ in range(r.randint(0, 5))]
        result: dict[str, Any] = {"content": content, "isError": r.random() < 0.2}
        texts = [b["text"] for b in content if b["type"] == "text"]
        roll = r.random()
        if roll < 0.3 and texts:
            result["structuredContent"] = {"result": "\n".join(texts)}
        elif roll < 0.4 and len(texts) == 1:
            with contextlib.suppress(ValueError):
                result["structuredContent"] = json.loads(texts[0])
        elif roll < 0.5:
            result["structuredContent"] = self.value()
        form = r.random()
        if form < 0.3:
            try:
                import mcp.types

                return mcp.types.CallToolResult.model_validate(result)
            except Exception:  # noqa: BLE001 - SDK missing or a value it refuses: the dict form will do
                return result
        if form < 0.45:
            return content
        return result

    def case(self) -> tuple[Any, str, bool]:
        """(raw input, kind, whether the input was JSON)."""
        r = self.r
        roll = r.random()
        if roll < 0.2:
            value = self.json_value()
            return value, "python", not isinstance(value, str)  # a Python str is text, not JSON
        if roll < 0.4:
            text = self.json_text(self.json_value())
            return (text.encode("utf-8", "surrogatepass") if r.random() < 0.2 else text), "json-text", True
        if roll < 0.5:
            text, is_json = self.nasty_json_text()
            return text, "nasty-json", is_json
        if roll < 0.65:
            return self.prose(), "prose", False
        if roll < 0.7:
            choice = r.randrange(4)
            if choice == 0:
                return b"\x89PNG\r\n\x1a\n" + os.urandom(r.randint(0, 50_000)), "png", False
            if choice == 1:
                return self.prose().encode("utf-8", "surrogatepass") + b"\xff\xfe\xc3", "broken-utf8", False
            if choice == 2:
                return r.choice(["", b"", None, [], {}]), "empty", False
            return os.urandom(r.randint(0, 5_000)), "random-bytes", False
        if roll < 0.74:
            choice = r.randrange(3)
            if choice == 0:
                text, is_json = self.run_of_one()
                return text, "run-of-one", is_json
            if choice == 1:
                value = self.non_string_keys()
                return value, "non-string-keys", not isinstance(value, str)  # a Python str is text, not JSON
            return self.escaped_wrapper(), "claude-wrapper", False
        text_value = self.json_value()
        if roll < 0.8:  # FastMCP `-> str`: the text as a block and again as structuredContent {"result": text}
            text = self.json_text(text_value)
            return (
                {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text}, "isError": False},
                "fastmcp",
                True,
            )
        return self.call_result(), "mcp", False

    def run_of_one(self) -> tuple[str, bool]:
        """A long run of one character, alone, around JSON, or inside a JSON string; the bool: is it JSON."""
        r = self.r
        run = r.choice(_RUNS) * (r.choice([1_000, 65, 100_000, 400_000, 2_000_000]) // 2)
        kind = r.randrange(4)
        if kind == 0:
            return run, False
        if kind == 1:
            blank = r.choice([" ", "\n", "\t", "\r\n"]) * r.choice([65, 200, 100_000])
            return blank + self.json_text(self.json_value()) + blank[: r.randint(0, 50)], True
        if kind == 2:
            return json.dumps({"id": 1, "text": run}), True
        return r.choice(["1", "-2", "3.5e"]) + "7" * r.choice([70, 500, 5_000]), False  # a long number (or not)

    def non_string_keys(self, depth: int = 0) -> Any:
        """Python data whose object keys are integers, None, tuples, floats or booleans (an SDK's dicts)."""
        r = self.r
        if depth > 4 or r.random() < 0.3:
            return self.scalar() if r.random() < 0.7 else "word " * r.randint(0, 400)
        keys = [r.randint(-5, 10**6), None, (1, "a"), 1.5, True, False, "1", "null", self.key(), float("nan")]
        wide = depth == 0 and r.random() < 0.3  # one wide level at the top; narrow below, so the size stays sane
        if r.random() < 0.3:
            return [self.non_string_keys(depth + 1) for _ in range(r.choice([500, 2_000]) if wide else r.randint(1, 5))]
        return {
            r.choice(keys) if r.random() < 0.7 else r.randint(0, 10**9): self.non_string_keys(depth + 1)
            for _ in range(r.choice([100, 2_000]) if wide else r.randint(1, 6))
        }

    def escaped_wrapper(self) -> str:
        """Claude Code's ``{"result": "<text>"}`` with text whose JSON escapes are long (control characters,
        quotes, backslashes, non-ASCII)."""
        r = self.r
        piece = r.choice(["\x01", "\x1f", '"', "\\", "\t", "\n", "é", "漢", "😀", "\u2028", "\x7f", "\ud800"])
        text = "".join(r.choice([piece, piece * 20, "word ", "\n"]) for _ in range(r.randint(10, 20_000)))
        if r.random() < 0.3:
            text = self.json_text(self.json_value())
        return json.dumps({"result": text}, ensure_ascii=r.random() < 0.5)

    def query(self) -> str:
        r = self.r
        pieces = [r.choice(_QUERY_PIECES) for _ in range(r.randint(1, 24))]
        if r.random() < 0.2:
            return r.choice(["(", "[", "{a:"]) * r.randint(1, 3_000)
        return r.choice([" | ", ".", " | ", "[*]."]).join(pieces)

    def policy(self, spill_dir: Path) -> Policy:
        r = self.r
        budget = r.choice([1, 2, 5, 8, 16, 50, 200, 500, 1_000, 2_000, 4_000, 8_000, 20_000, r.randint(1, 20_000)])
        return Policy(
            budget=budget,
            encoding=r.choice(["o200k_base", "o200k_base", "cl100k_base"]),
            safety_factor=r.choice([1.0, 1.0, 1.3]),
            max_chars=r.choice([None, None, None, r.randint(100, 100_000)]),
            rules=_RULES,
            on_fault=r.choice(["cut", "cut", "refuse"]),
            spill_dir=spill_dir,
            spill_max_bytes=r.choice([256 * 1024 * 1024, 2_000_000]),
            keep_binary=r.random() < 0.05,
            retrieval_tool=r.choice([None, "hostshape_read"]),
        )

    def args(self) -> dict[str, Any]:
        r = self.r
        return r.choice([{}, {"path": "../../x"}, {"q\x00": "\x00"}, {"n": r.randint(0, 9)}, {"s": self.string()[:50]}])


# -- checks -------------------------------------------------------------------------------------------------


def _strict_json(text: str) -> None:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    json.loads(text, parse_constant=refuse)


def run_case(seed: int, case: int, spill_dir: Path) -> tuple[str, str] | None:
    """None when every promise held; else (failure kind, detail)."""
    gen = Gen(random.Random(f"{seed}:{case}"))
    try:
        raw, kind, is_json = gen.case()
    except Exception as exc:  # noqa: BLE001 - a generator limit, not a core failure
        return f"generator error {type(exc).__name__} (not a core failure)", str(exc)[:200]
    policy = gen.policy(spill_dir)
    tool = gen.r.choice(_TOOLS)
    args = gen.args()
    started = time.perf_counter()
    try:
        res = shape(raw, policy=policy, tool=tool, args=args)
    except BaseException as exc:  # the point of the run: anything escaping shape() is a finding
        if isinstance(exc, KeyboardInterrupt):
            raise
        return f"raised {type(exc).__name__} [{kind}]", traceback.format_exc(limit=-3)[-600:]
    elapsed = time.perf_counter() - started
    if res.fault:
        return f"fault {res.fault.split(':')[0]} [{kind}]", res.fault[:300]
    try:
        res.text.encode("utf-8")
    except UnicodeEncodeError:
        return f"text not UTF-8 [{kind}]", repr(res.text[:200])
    cap = max(1, math.floor(policy.budget_for(tool) / policy.safety_factor))
    tokens = count_tokens(res.text, policy.encoding)
    if tokens > cap:
        return f"over budget (changed={res.changed}) [{kind}]", f"{tokens} > {cap} tokens, strategy {res.strategy}"
    if policy.max_chars is not None and len(res.text) > policy.max_chars:
        return f"over max_chars [{kind}]", f"{len(res.text)} > {policy.max_chars} chars"
    roomy = cap >= 300 and (policy.max_chars is None or policy.max_chars >= 1_200)
    if res.changed and res.strategy == "minimal" and roomy:
        return f"{NOTICE} minimal answer at a cap of 300+ tokens [{kind}]", repr(res.text[:200])
    if is_json and res.changed:
        try:
            _strict_json(res.text)
        except ValueError as exc:
            start = raw[:40] if isinstance(raw, (str, bytes)) else type(raw).__name__
            return (
                f"changed answer to JSON input is not JSON [{kind}]",
                f"input starts {start!r}; {exc}: {res.text[:200]!r}",
            )
    if res.path is not None:
        path = Path(res.path)
        if path.parent != spill_dir or not _HANDLE_FILE.match(path.name) or path.name[:27] != res.handle:
            return "spill file outside the folder or misnamed", res.path
        if path.is_symlink():
            return "spill file is a symlink", res.path
    if case % 5 == 0:
        again = shape(raw, policy=policy.replace(), tool=tool, args=args)
        if again.text != res.text:
            return f"not deterministic [{kind}]", f"{res.text[:120]!r} vs {again.text[:120]!r}"
    if res.handle and case % 2 == 0:
        failure = _check_queries(gen, res.handle, policy, max(1, math.floor(policy.budget / policy.safety_factor)))
        if failure is not None:
            return failure
    if elapsed > SLOW_SHAPE_S:
        return f"{NOTICE} shaping took over {SLOW_SHAPE_S:g} s [{kind}]", f"{elapsed:.1f} s"
    return None


def _check_queries(gen: Gen, handle: str, policy: Policy, cap: int) -> tuple[str, str] | None:
    """Model-written queries to ``hostshape_read`` on the saved result: answered, UTF-8, within the budget and
    in time."""
    reader = policy.replace(retrieval_tool="hostshape_read")
    for _ in range(gen.r.randint(1, 3)):
        query = gen.query()
        started = time.perf_counter()
        try:
            answer = read(handle, query=query, policy=reader)
        except BaseException as exc:  # noqa: BLE001 - read promises never to raise
            if isinstance(exc, KeyboardInterrupt):
                raise
            return f"read raised {type(exc).__name__}", f"query {query[:120]!r}"
        took = time.perf_counter() - started
        try:
            answer.encode("utf-8")
        except UnicodeEncodeError:
            return "read answer not UTF-8", f"query {query[:120]!r}"
        tokens = count_tokens(answer, policy.encoding)
        if tokens > cap:
            return "read answer over budget", f"{tokens} > {cap} tokens; query {query[:120]!r}"
        if took > SLOW_READ_S:
            return "read took too long", f"{took:.1f} s; query {query[:120]!r}"
    return None


def worker(seed: int, start: int, step: int, deadline: float, out: Any) -> None:
    spill_dir = Path(tempfile.mkdtemp(prefix="hostshape-fuzz-")) / "spill"
    count, failures = 0, {}
    case = start
    try:
        while time.monotonic() < deadline:
            outcome = run_case(seed, case, spill_dir)
            count += 1
            if outcome is not None:
                kind, detail = outcome
                seen = failures.setdefault(kind, [0, case, detail])
                seen[0] += 1
            case += step
    finally:
        shutil.rmtree(spill_dir.parent, ignore_errors=True)
        out.put((count, failures))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="how long to run (default 600)")
    parser.add_argument("--seed", type=int, default=None, help="run seed (default: from the clock, printed)")
    parser.add_argument("--jobs", type=int, default=max(1, min(2, os.cpu_count() or 1)), help="worker processes")
    parser.add_argument("--case", type=int, default=None, help="replay one case of --seed and print its outcome")
    opts = parser.parse_args(argv)
    seed = opts.seed if opts.seed is not None else int(time.time()) % 100_000
    if opts.case is not None:
        with tempfile.TemporaryDirectory() as tmp:
            gen = Gen(random.Random(f"{seed}:{opts.case}"))
            raw, kind, is_json = gen.case()
            print(
                f"case {opts.case} of seed {seed}: {kind}, {type(raw).__name__}, json={is_json}; "
                f"policy {gen.policy(Path(tmp))}"
            )
            outcome = run_case(seed, opts.case, Path(tmp) / "spill")
            print("ok" if outcome is None else f"FAILED {outcome[0]}\n{outcome[1]}")
            return 0 if outcome is None else 1
    from hostshape.tokens import encoding

    encoding("o200k_base"), encoding("cl100k_base")  # load once, before forking
    started = time.monotonic()
    deadline = started + opts.seconds
    ctx = mp.get_context("fork") if hasattr(os, "fork") else mp.get_context()
    out = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(seed, j, opts.jobs, deadline, out)) for j in range(opts.jobs)]
    for p in procs:
        p.start()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    elapsed = time.monotonic() - started
    total = sum(count for count, _ in results)
    merged: dict[str, list[Any]] = {}
    for _, failures in results:
        for kind, (n, case, detail) in failures.items():
            seen = merged.setdefault(kind, [0, case, detail])
            seen[0] += n
            if case < seen[1]:
                seen[1], seen[2] = case, detail

    def broken(kind: str) -> bool:
        return not kind.startswith(("generator", NOTICE))

    def known(detail: str) -> str | None:
        return next((test for text, test in KNOWN if text in detail), None)

    failed = sum(n for kind, (n, _, _) in merged.items() if broken(kind))
    new = sum(n for kind, (n, _, detail) in merged.items() if broken(kind) and not known(detail))
    for kind, (n, case, detail) in sorted(merged.items(), key=lambda kv: -kv[1][0]):
        label = "FAIL" if broken(kind) else "NOTE"
        pinned = known(detail) if broken(kind) else None
        print(
            f"{label} x{n}: {kind}\n    replay: python bench/fuzz.py --seed {seed} --case {case}\n    "
            + (f"known core bug, pinned by {pinned}\n    " if pinned else "")
            + detail.strip().replace("\n", "\n    ")
        )
    kinds = sum(broken(kind) for kind in merged)
    result = (
        "no failures"
        if not failed
        else (
            f"{failed:,} failing cases ({failed / max(total, 1):.1%}) in {kinds} kinds, "
            + (
                f"{new:,} of them not yet pinned by a test"
                if new
                else "all of them known core bugs pinned by xfail tests"
            )
        )
    )
    print(f"fuzz: {total:,} cases in {elapsed:.0f} s ({opts.jobs} processes, seed {seed}): {result}")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())

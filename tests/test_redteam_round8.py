"""Red team, round 8: hostile inputs on the heading readers, the envelope's cut places, the first record shrunk
beside the index, CSV text with a byte order mark and the list a top-level list is shown under; each asserting
on what the model receives (o200k) through ``hostshape.shape``, ``read`` or the reader itself."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from test_hook_command import codex_input, hook_env, post_tool_use, write_policy

from hostshape import Policy, shape
from hostshape.documents import asciidoc, markdown, notebook, org
from hostshape.tokens import count_tokens
from hostshape.wayback.retrieve import read
from tests.answers import read_policy as _policy


def _shaped(raw: Any, policy: Policy) -> str:
    text = shape(raw if isinstance(raw, str) else json.dumps(raw), policy=policy).text
    assert text.strip() and count_tokens(text) <= policy.budget
    return text


# ---- time: a heading line of blanks before its last word ---------------------------------------------------------

# A lazy title before optional blanks and a closing mark retried every blank: ~60 ms a 2,000-character line, so a
# 2 MB text of such headings took about a minute (markdown past markdown-it's size, AsciiDoc, Org, notebook cells).
_BLANKS = " \t" * 960  # within the 2,000 characters a heading line is read to


def _notebook_of(source: str) -> str:
    cells = [{"cell_type": "markdown", "source": source}, {"cell_type": "code", "source": "x", "outputs": []}]
    return json.dumps({"cells": cells, "nbformat": 4, "nbformat_minor": 5, "metadata": {}})


HEADINGS = {
    "markdown": (markdown.outline, lambda n: "# Title\n\n" + f"## b{_BLANKS}x ##\n" * n),
    "asciidoc": (asciidoc.outline, lambda n: "= Title\n\n" + f"== b{_BLANKS}x ==\n" * n),
    "org": (org.outline, lambda n: "* Title\n" + f"** b{_BLANKS}x   :tag:\n" * n),
    "notebook": (notebook.outline, lambda n: _notebook_of(f"## b{_BLANKS}x ##\n" * n)),
}


@pytest.mark.parametrize("kind", list(HEADINGS))
def test_a_heading_of_many_blanks_is_read_in_linear_time(kind: str) -> None:
    outline, text = HEADINGS[kind]
    started = time.perf_counter()
    found = outline(text(1000))
    assert time.perf_counter() - started < 15  # about a minute before
    assert found is not None
    titles = {entry.title for entry in found.entries[1:] if not entry.title.startswith("cell ")}
    assert titles == {"b"}, titles  # a title is read from its first 480 characters


def test_a_heading_s_closing_mark_and_tags_are_left_out_of_its_title() -> None:
    md = markdown._scanned("# One ##\n## Two #\t\n### ###\n#### C# ####\n")
    assert [e.title for e in md] == ["One", "Two", "###", "C#"]
    adoc = asciidoc.outline("= Doc =\n== A == B ==\n=== ===\n")
    assert adoc is not None and [e.title for e in adoc.entries] == ["Doc", "A == B", "==="]
    headlines = org.outline("* TODO Plan :work:urgent:\n** Notes:\n*** :tag:\n")
    assert headlines is not None and [e.title for e in headlines.entries] == ["TODO Plan", "Notes:", ":tag:"]


# ---- the way back: a cut under a list's item is named by a query that reads it -----------------------------------


def _named_queries(env: dict[str, Any]) -> list[str]:
    return [q for note in env.get("notes", []) for q in re.findall(r" of [\d,]+ \(([^()]*(?:\([^()]*\))?)\)", note)]


@pytest.mark.parametrize(
    "value",
    [
        {"pages": [{"blocks": {f"b{i}": {"t": "w " * 30} for i in range(300)}}, "tail"]},
        {"a": [[{f"k{i}": i for i in range(500)}], 3]},
    ],
    ids=["a map inside a list", "a map inside a list inside a list"],
)
def test_every_cut_place_inside_a_list_is_named_by_a_query_that_reads_it(tmp_path: Path, value: Any) -> None:
    # Each list position was written as a quoted key ('pages."0".blocks'): the query read nothing (null).
    policy = _policy(tmp_path, 500)
    result = shape(json.dumps(value), policy=policy)
    env = json.loads(result.text)["_hostshape"]
    queries = _named_queries(env)
    assert queries, env
    for query in queries:
        page = json.loads(read(result.handle or "", query=query, policy=policy))
        assert page["_hostshape"].get("matched", True), (query, page)
        assert page.get("value", page) is not None


# ---- truth: an answer that cut something says truncated ----------------------------------------------------------


@pytest.mark.parametrize("budget", [300, 500, 800])
def test_a_first_record_shrunk_beside_the_index_is_reported_truncated(tmp_path: Path, budget: int) -> None:
    # One record of 400 members: 375 of them cut ("…": "+375 more members") under "truncated": false.
    value = {"data": [{"id": 1, "attrs": {f"k{i}": "v" * 20 for i in range(400)}}], "x": {"y": 1}}
    text = _shaped(value, _policy(tmp_path, budget))
    assert "more members" in text or "…[+" in text
    assert json.loads(text)["_hostshape"]["truncated"] is True


# ---- CSV and JSON lines: a byte order mark is not part of the first column ---------------------------------------


@pytest.mark.parametrize("form", ["csv", "jsonl"])
def test_a_table_opening_with_a_byte_order_mark_names_its_first_column_plainly(tmp_path: Path, form: str) -> None:
    # Excel's "CSV UTF-8" starts with U+FEFF: the first column was shown as "\ufeffid" and [?id=='5'] matched nothing.
    if form == "csv":
        text = "\ufeffid,name,city\r\n" + "".join(f"{i},name {i},city {i % 7}\r\n" for i in range(300))
    else:  # read as prose before: the first line did not parse
        text = "\ufeff" + "".join(json.dumps({"id": str(i), "name": f"name {i}"}) + "\n" for i in range(300))
    policy = _policy(tmp_path, 600)
    result = shape(text, policy=policy)
    answer = json.loads(result.text)
    assert count_tokens(result.text) <= 600 and "\ufeff" not in result.text
    assert answer["items"][0]["id"] == "0"
    page = json.loads(read(result.handle or "", query="[?id=='5'].name", policy=policy))
    assert page["items"] == ["name 5"], page


# ---- the way back: the list the envelope names, for a list that is the whole result -------------------------------


@pytest.mark.parametrize("form", ["json", "csv", "jsonl"])
def test_the_list_a_top_level_list_is_named_by_reads_its_records(tmp_path: Path, form: str) -> None:
    # The answer shows a top-level list as {"items": [...]} and its envelope says "list": "items"; the query
    # "items[?id=='7']" (the description's own example form) read null from the saved list.
    records = [{"id": str(i), "name": f"name {i}", "text": "words " * 20} for i in range(300)]
    if form == "json":
        text = json.dumps(records)
    elif form == "csv":
        text = "id,name,text\n" + "".join(f"{r['id']},{r['name']},{r['text']}\n" for r in records)
    else:
        text = "".join(json.dumps(r) + "\n" for r in records)
    policy = _policy(tmp_path, 600)
    env = json.loads(_shaped(text, policy))["_hostshape"]
    assert env["list"] == "items"
    page = json.loads(read(env["handle"], query=f"{env['list']}[?id=='7'].name", policy=policy))
    assert page["_hostshape"].get("matched", True) and page["items"] == ["name 7"], page
    page = json.loads(read(env["handle"], query="[?id=='7'].name", policy=policy))  # from the saved list itself
    assert page["items"] == ["name 7"], page


# ---- the hooks: a hook input nested past the parser's depth is withheld, never passed on unshaped ----------------


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_a_hook_input_nested_too_deep_to_parse_is_withheld_within_the_budget(tmp_path: Path, host: str) -> None:
    # json.loads raised RecursionError on a structured content 5,000 lists deep: the hook wrote nothing, and the
    # result (here 20,000+ tokens of text beside it) reached the model as the tool made it.
    records = json.dumps([{"id": i, "text": "words " * 40} for i in range(300)])
    content = {"content": [{"type": "text", "text": records}], "structuredContent": {"deep": "DEEP"}}
    raw = codex_input(content) if host == "codex" else post_tool_use(content)
    stdin = raw.replace('"DEEP"', "[" * 5000 + "]" * 5000).encode()
    policy = write_policy(tmp_path / "policy.toml", tmp_path / "spill", budget=500)
    proc = subprocess.run(
        [sys.executable, "-m", "hostshape.cli.hook", host, "--policy", str(policy)],
        input=stdin,
        capture_output=True,
        env={**os.environ, **hook_env()},
        timeout=120,
    )
    assert proc.returncode == 0 and proc.stdout, proc.stderr[-400:]
    out = json.loads(proc.stdout)
    text = str(out["reason"] if host == "codex" else out["hookSpecificOutput"]["updatedToolOutput"])
    assert "withheld" in text and count_tokens(text) <= 500


# ---- truth: the tool's own member named like hostshape's index is never overwritten ------------------------------


def test_a_result_s_own_index_member_is_kept_beside_hostshape_s(tmp_path: Path) -> None:
    # {"_index": ...} beside the list: hostshape's index replaced it silently (the tool's value lost, and the model
    # could not tell whose "_index" it read).
    records = [{"id": f"id-{i}", "name": f"name {i}", "body": f"words {i} " * 60} for i in range(3000)]
    value = {"_index": {"shard": "eu-1", "version": 7}, "results": records}
    policy = _policy(tmp_path, 700)
    answer = json.loads(_shaped(value, policy))
    env = answer["_hostshape"]
    assert answer["_index"]["fields"] and answer["_index_input"] == value["_index"]
    assert any("'_index_input'" in note for note in env["notes"])
    page = json.loads(read(env["handle"], query="_index.shard", policy=policy))
    assert page["value"] == "eu-1"  # the saved result keeps the tool's own name


# ---- time: records whose members all differ ----------------------------------------------------------------------


def test_records_of_distinct_members_read_only_the_columns_that_can_identify_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 100 records of 2,000 members each, no name shared (a map of per-record metrics flattened): each of the 200,000
    # columns was read several times over while looking for an identifier, ~60 s (2 s at 500 members).
    from hostshape.records import structure

    reads = 0
    values = structure._values

    def counted(records: Any, path: str) -> list[Any]:
        nonlocal reads
        reads += 1
        return values(records, path)

    monkeypatch.setattr(structure, "_values", counted)
    records = [{f"r{j}_k{i}": i for i in range(500)} for j in range(100)]
    text = _shaped(records, _policy(tmp_path, 500))
    assert reads < 5_000, reads  # about 300,000 before: every column read by every identifier search
    assert json.loads(text)["_hostshape"]["truncated"] is True


@pytest.mark.parametrize("wrapped", [True, False], ids=["a list under a key", "a top-level list"])
def test_a_cut_inside_a_later_page_s_record_is_named_by_a_query_that_reads_that_record(
    tmp_path: Path, wrapped: bool
) -> None:
    # Page 2's first record, shrunk: its cut was named from the page ('results.0', '"results"[0]'), reading the
    # list's first record (or nothing), not the one shown.
    records = [{"id": i, "name": f"record {i}", **{f"k{j}": f"v{i}-{j}" for j in range(300)}} for i in range(5)]
    policy = _policy(tmp_path, 400)
    first = json.loads(_shaped({"results": records, "meta": 1} if wrapped else records, policy))
    handle, cursor = first["_hostshape"]["handle"], first["_hostshape"]["next"]
    page = json.loads(read(handle, cursor=cursor, policy=policy))
    shown = page["results"][0] if wrapped else page  # a top-level list's one record is shown as the answer
    queries = _named_queries(page["_hostshape"])
    assert queries, page["_hostshape"]
    for query in queries:
        back = json.loads(read(handle, query=query, policy=policy))
        assert back["_hostshape"].get("total") == 302, (query, back)  # every member name of the record
        inner = query.removeprefix("keys(").removesuffix(")")
        own = json.loads(read(handle, query=f"{inner}.id", policy=policy))
        assert own["value"] == shown["id"] == 1, (query, own)


# ---- the config rewriter: a FIFO planted at the config's path ----------------------------------------------------


def test_proxy_config_refuses_a_fifo_at_the_config_path_without_waiting(tmp_path: Path) -> None:
    # open() of a FIFO waits for a writer: `hostshape proxy-config wrap` hung for ever.
    fifo = tmp_path / "mcp.json"
    os.mkfifo(fifo)
    proc = subprocess.run(
        [sys.executable, "-m", "hostshape", "proxy-config", "show", str(fifo)],
        capture_output=True,
        text=True,
        env={**os.environ, **hook_env()},
        timeout=60,
    )
    assert proc.returncode != 0 and "not a regular file" in proc.stderr, proc.stderr

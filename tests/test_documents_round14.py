"""What tools return that is not a page (docs14): a test run with full backtraces (cargo test), build logs whose
lines are indented (MSBuild, a console's margin), an application's log of ``label: message`` lines (not YAML: a
mapping never repeats a key), a patch series (each commit above its files), a Terraform plan (one step a resource
change, its ``Plan:`` line the result), a table of aligned columns (``kubectl get``: records), and Java whose
``default:`` labels are not definitions. Corpus documents: corpus/documents/PROVENANCE.md."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hostshape.documents import kind_of, outline_of
from hostshape.records.locate import records_from_text
from hostshape.wayback import retrieve
from tests.answers import shaped_document as _shaped

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "documents"


# -- a test run with backtraces: a log, one step per failed test, its panic message first -------------------------
def _cargo_failure(name: str, message: str, frames: int) -> str:
    trace = "".join(
        f"  {i}:     0x55e866d742fa - std[e28293b1]::panicking::frame_{i}::h{i:016x}\n"
        f"                               at /rustc/5980/library/std/src/panicking.rs:{i + 10}:5\n"
        for i in range(frames)
    )
    return (
        f"---- {name} stdout ----\n\nthread '{name}' (2043) panicked at src/lib.rs:33:16:\n{message}\n"
        f"stack backtrace:\n{trace}"
    )


def test_a_cargo_test_run_with_full_backtraces_is_a_log_of_its_failures(tmp_path: Path) -> None:
    names = ["tests::parses_dates", "tests::sums_totals", "tests::reads_keys"]
    messages = ["assertion failed: the date is wrong", "attempt to add with overflow", "missing key `id`"]
    text = (
        "running 10 tests\n"
        + "".join(f"test {n} ... FAILED\n" for n in names)
        + "\nfailures:\n\n"
        + "".join(_cargo_failure(n, m, 40) for n, m in zip(names, messages, strict=True))
        + "\nfailures:\n"
        + "".join(f"    {n}\n" for n in names)
        + "\ntest result: FAILED. 7 passed; 3 failed; 0 ignored\n"
    )
    assert kind_of(text) == "log"  # the frames' ``12: a::b`` lines read as YAML keys before
    found = outline_of(text)
    assert [e.title for e in found.entries] == names
    assert found.summary.endswith("it ends: test result: FAILED. 7 passed; 3 failed; 0 ignored")
    assert not any("frame_" in h for h in found.highlights)  # a frame is where the panic passed, not an error
    first, _, _ = _shaped(text, 1000, tmp_path)
    for message in messages:
        assert message in first


def test_the_cargo_corpus_run_names_each_failure_and_its_message(tmp_path: Path) -> None:
    first, res, policy = _shaped((CORPUS / "cargo_test_backtrace.log").read_text(), 2000, tmp_path)
    assert "bob should have received 30" in first and "attempt to divide by zero" in first
    assert "6 passed; 3 failed" in first
    read = retrieve.read(res.handle, section="tests::transfer_moves_money", policy=policy)
    assert "left: Some(81)" in read and "attempt to divide by zero" not in read


# -- indented build logs: MSBuild's nesting, a console's one-space margin ---------------------------------------
def test_an_msbuild_log_is_a_log_of_projects_ending_with_its_error_count(tmp_path: Path) -> None:
    text = (CORPUS / "msbuild_solution.log").read_text()
    assert kind_of(text) == "log"
    found = outline_of(text)
    assert "C:\\Dev\\knd\\XXX.Collector.Model\\XXX.Collector.Model.csproj" in [e.title for e in found.entries]
    assert found.summary.endswith("it ends: 11 Error(s)")  # the result, not the time elapsed after it
    first, _, _ = _shaped(text, 2000, tmp_path)
    assert "error MSB3021" in first and "11 Error(s)" in first


def test_a_build_log_in_a_margin_that_opens_like_json_is_a_document(tmp_path: Path) -> None:
    text = (CORPUS / "ninja_cmake_gcc.log").read_text()
    assert text.startswith(" [403/891]") and kind_of(text) == "log"
    first, _, _ = _shaped(text, 2000, tmp_path)
    assert not first.startswith("{")  # read as broken JSON before: a member cut from a {"text": ...} object
    assert "is deprecated [-Wdeprecated-declarations]" in first


# -- a log of ``label: message`` lines is not YAML ------------------------------------------------------------------
def test_lines_repeating_one_key_are_a_log_with_their_count(tmp_path: Path) -> None:
    lines = ["Starting connection tests", "Success! Status Code: 200"]
    lines += [f"Connection error: cannot resolve host (object at 0x7f59{i:08x}); retry {i}" for i in range(120)]
    text = "\n".join(lines) + "\n"
    assert kind_of(text) == "log"
    found = outline_of(text)
    assert found.highlights[0].startswith("L3 (x120) Connection error: cannot resolve host")  # hex varies too
    first, _, _ = _shaped((CORPUS / "kubectl_logs_dns_errors.txt").read_text(), 2000, tmp_path)
    assert "(x147) Connection error" in first and "Success! Status Code: 200" in first


@pytest.mark.parametrize(
    "text",
    [
        "\n---\n".join(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  k: v" for i in range(30)),
        "\n".join(f"- name: item{i}\n  value: {i}\n  about: the {i}th" for i in range(40)),
        "\n".join(f"key{i}: value {i}\nnested{i}:\n  a: 1\n  b: 2" for i in range(40)),
    ],
    ids=["manifests", "a list of mappings", "distinct keys"],
)
def test_yaml_whose_keys_repeat_only_across_documents_or_items_stays_yaml(text: str) -> None:
    assert kind_of(text) == "yaml"


def test_kubectl_describe_reads_as_keys_with_its_sections(tmp_path: Path) -> None:
    text = (CORPUS / "kubectl_describe_node.txt").read_text()
    assert kind_of(text) == "yaml"
    first, res, policy = _shaped(text, 2000, tmp_path)
    assert "Non-terminated Pods: (72 in total)" in first and "Allocated resources:" in first
    assert "5039m (15%)" in retrieve.read(res.handle, section="Allocated resources:", policy=policy)


# -- a patch series: each commit above its files -------------------------------------------------------------------
def test_a_patch_series_outlines_each_patch_by_subject_with_its_files(tmp_path: Path) -> None:
    found = outline_of((CORPUS / "gotestsum_patch_series.patch").read_text())
    top = [e.title for e in found.entries if e.level == 1]
    assert len(top) == 16 and top[4].startswith("[PATCH 05/16] chore(internal/junitxml): encode the attributes")
    under = [e for e in found.entries if e.level == 2]
    assert under[0].title == "testjson/internal/withattributes/attrs_test.go +10 -0 (new)"
    first, res, policy = _shaped((CORPUS / "gotestsum_patch_series.patch").read_text(), 2000, tmp_path)
    assert "[PATCH 16/16]" in first and "internal/junitxml/report.go +31 -3" in first
    read = retrieve.read(res.handle, section="[PATCH 09/16] Update Go version", policy=policy)
    assert "+      tag: 1.25-alpine" in read and "golangci-lint" not in read


def test_git_show_of_one_commit_is_titled_by_its_subject() -> None:
    text = (
        "commit 0123456789abcdef0123456789abcdef01234567\nAuthor: A Person <a@example.invalid>\n"
        "Date:   Mon Jan 1 10:00:00 2026 +0000\n\n    Fix the parser on empty input\n\n    Longer text.\n\n"
        "diff --git a/src/parse.py b/src/parse.py\nindex 1111111..2222222 100644\n--- a/src/parse.py\n"
        "+++ b/src/parse.py\n@@ -1,3 +1,4 @@ def parse(text):\n     if text is None:\n+        return []\n"
        "         raise ValueError\n     return text.split()\n"
    )
    found = outline_of(text)
    assert [(e.title, e.level) for e in found.entries][:2] == [
        ("0123456789ab Fix the parser on empty input", 1),
        ("src/parse.py +1 -0", 2),
    ]


def test_a_diff_without_commits_keeps_its_files_at_the_top() -> None:
    text = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-a = 1\n+a = 2\n b = 3\n"
    assert outline_of(text).entries[0].level == 1


# -- a Terraform plan: a log of resource changes, its Plan: line the result ----------------------------------------
def test_a_terraform_plan_is_a_log_of_its_resource_changes(tmp_path: Path) -> None:
    text = (CORPUS / "terraform_plan_shop.txt").read_text()
    assert kind_of(text) == "log"
    found = outline_of(text)
    titles = [e.title for e in found.entries]
    assert "terraform_data.dns_records[2] will be destroyed (because index [2] is out of range for count)" in titles
    assert 'module.service["checkout"].terraform_data.service must be replaced' in titles
    assert "it ends: Plan: 4 to add, 4 to change, 4 to destroy." in found.summary
    first, res, policy = _shaped(text, 2000, tmp_path)
    assert "Plan: 4 to add, 4 to change, 4 to destroy." in first
    read = retrieve.read(res.handle, section="terraform_data.database will be updated in-place", policy=policy)
    assert '"db.m5.large" -> "db.m5.xlarge"' in read


# -- a table of aligned columns: records --------------------------------------------------------------------------
def test_a_kubectl_table_is_records_every_row_named_with_its_status(tmp_path: Path) -> None:
    text = (CORPUS / "kubectl_get_pods_wide.txt").read_text()
    table = records_from_text(text)
    assert table is not None and len(table.records) == 35
    assert table.records[-1]["STATUS"] == "Pending" and table.records[0]["RESTARTS"] == "56 (3h19m ago)"
    assert table.records[0]["NOMINATED NODE"] == "<none>"  # a name of two words is one column
    first, _, _ = _shaped(text, 2000, tmp_path)
    shown = json.loads(first)
    assert "user-profile-resources-659d4dd659-9ddzf" in first and "Pending" in first  # the last row, past a cut
    assert shown["_hostshape"]["total"] == 35


def test_an_aligned_table_may_leave_a_cell_empty() -> None:
    text = (
        "CONTAINER ID   IMAGE          COMMAND                  STATUS         PORTS                  NAMES\n"
        '4c01db0b339c   nginx:1.25     "/docker-entrypoint.…"   Up 2 hours     0.0.0.0:80->80/tcp     web\n'
        'd7886598dbe2   redis:7        "docker-entrypoint.s…"   Up 2 hours                            cache\n'
        'a1b2c3d4e5f6   busybox        "sleep 3600"             Exited (0)                            job\n'
    )
    table = records_from_text(text)
    assert table is not None and [r["NAMES"] for r in table.records] == ["web", "cache", "job"]
    assert table.records[1]["PORTS"] == "" and table.records[0]["CONTAINER ID"] == "4c01db0b339c"


@pytest.mark.parametrize(
    "text",
    [
        "\n".join(f"This is line {i} of a story that goes on and on without columns." for i in range(30)),
        "NAME  VALUE\n" + "\n".join(f"k{i}    {i}" for i in range(30)),  # two columns: not enough to tell
        "A  B  C\n" + "\n".join(f"word{i} x y z and more words here" for i in range(30)),  # nothing under B, C
    ],
    ids=["prose", "two columns", "misaligned"],
)
def test_text_that_is_not_an_aligned_table_is_not_records(text: str) -> None:
    assert records_from_text(text) is None


def test_a_wide_run_of_spaced_names_is_not_an_aligned_table() -> None:
    header = "  ".join(f"c{i}" for i in range(1000))
    rows = ["  ".join(f"{i % 10:<{len(f'c{i}')}}" for i in range(1000)) for _ in range(3)]
    start = time.perf_counter()
    assert records_from_text("\n".join([header, *rows]) + "\n") is None
    assert time.perf_counter() - start < 2


# -- code: a keyword is a whole word -------------------------------------------------------------------------------
def test_a_java_switch_default_is_not_a_definition() -> None:
    text = (CORPUS / "gson_JsonReader.java").read_text()
    titles = [e.title for e in outline_of(text).entries]
    assert "default" not in titles and not any(t.startswith("default") for t in titles)
    assert "public void skipValue() throws IOException" in titles


# -- hostile: the new line shapes stay linear ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "line",
    [
        "12: " + "a" * 190,  # a frame-like number and no ``::``
        "Connection error: " + "x " * 90,
        "  # " + "r" * 150 + " will be created",
        'Project "' + "p" * 300,
    ],
)
def test_floods_of_the_new_shapes_are_read_in_bounded_time(line: str) -> None:
    text = "\n".join([line] * 20_000) + "\n"
    start = time.perf_counter()
    kind = kind_of(text)
    outline_of(text)
    assert time.perf_counter() - start < 10, kind


def test_a_log_line_that_starts_with_at_is_no_frame() -> None:
    text = "\n".join(f"2026-01-01 10:00:{i:02d} INFO step {i}" for i in range(40))
    text += "\nat 10:00 the server failed to start: port in use\n"
    assert any("the server failed to start" in h for h in outline_of(text).highlights)


@pytest.mark.parametrize(
    ("tail", "shown"),
    [
        ("    46 Warning(s)\n    11 Error(s)\n\nTime Elapsed 00:00:18.87", "11 Error(s)"),
        (
            "##[error]Process completed with exit code 1.\nCleaning up orphan processes",
            "[error]Process completed with exit code 1.",
        ),
        ("Plan: 4 to add, 1 to destroy.\n\nNote: saved nowhere, so apply may differ", "Plan: 4 to add, 1 to destroy."),
        ("src/a.c:3:5: warning: unused value\nmake: leaving directory", ""),  # a diagnostic is no result
        ("  = note: `#[warn(x)]` on by default\nsummary printed above", ""),
        ("step 78 done\nstep 79 done\n+ make rebuild ARCH=i686", ""),  # a count not set apart by a blank line
    ],
)
def test_a_result_line_may_come_before_a_trailing_note(tail: str, shown: str) -> None:
    text = "\n".join(f"2026-01-01 10:00:{i % 60:02d} INFO step {i} done" for i in range(80)) + f"\n{tail}\n"
    summary = outline_of(text).summary
    assert (f"it ends: {shown}" in summary) if shown else ("it ends" not in summary)

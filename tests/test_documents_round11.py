"""Tools' text that is not a web page (docs11): a compiler's diagnostics (rustc and clippy, gcc, tsc), a linter's
report with one-letter severities (rubocop, pylint), a Maven build whose every line carries its level, test
reports (JUnit, TRX, NUnit) and a ``git log``. The outline has one entry per diagnostic (a ``section`` read gives it
whole), quoted source is not taken for the tool's words, the level a Maven line starts with is not a parallel
branch, and the line a log ends with (its result) is in the header. Corpus documents: corpus/documents/PROVENANCE.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hostshape.documents import kind_of, outline_of
from hostshape.wayback import retrieve
from tests.answers import shaped_document as _shaped

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "documents"


# -- a compiler's diagnostics: one entry each, its place in the title, a section reads it whole -------------------
def _rustc(n: int) -> str:
    parts = []
    for i in range(n):
        severity = "error[E0308]" if i % 5 == 0 else "warning"
        parts.append(
            f"{severity}: problem number {i} in the item\n  --> src/mod{i}.rs:{i + 3}:9\n   |\n"
            f"{i + 3:<3}|     let value_{i} = compute(error_{i});\n   |         ^^^^^^^ detail {i}\n   |\n"
            f"   = note: `#[warn(lint_{i})]` on by default\n   = help: try something else for case {i}\n"
        )
    return "\n".join(parts) + f"\nerror: could not compile `demo` due to {n // 5} previous errors\n"


def test_rustc_diagnostics_are_a_log_with_one_entry_each(tmp_path: Path) -> None:
    text = _rustc(60)
    assert kind_of(text) == "log"
    found = outline_of(text)
    titles = [e.title for e in found.entries]
    assert titles[0] == "error[E0308]: problem number 0 in the item (src/mod0.rs:3:9)"
    assert "warning: problem number 1 in the item (src/mod1.rs:4:9)" in titles
    assert found.summary.endswith("it ends: error: could not compile `demo` due to 12 previous errors")
    # source a compiler quotes (its gutter) is not an error line of the tool's own
    assert not any("let value_" in h.split("\n")[0] for h in found.highlights)
    first, res, policy = _shaped(text, 2000, tmp_path)
    assert "src/mod0.rs:3:9" in first and "could not compile" in first
    read = retrieve.read(res.handle, section="warning: problem number 7 in the item (src/mod7.rs:10:9)", policy=policy)
    assert "try something else for case 7" in read and "case 8" not in read


def test_place_led_compiler_errors_are_entries() -> None:
    lines = []
    for i in range(40):
        lines += [f"src/unit{i}.c:{i + 10}:5: error: 'x{i}' undeclared (first use in this function)"]
        lines += [f"   x{i} = 1;", "   ^~"]
        lines += [f"lib/part{i}.ts({i + 2},7): error TS2322: Type 'string' is not assignable to type 'number'."]
    found = outline_of("\n".join(lines))
    assert found.kind == "log"
    titles = [e.title for e in found.entries]
    assert titles[0] == "src/unit0.c:10:5: error: 'x0' undeclared (first use in this function)"
    assert "lib/part3.ts(5,7): error TS2322: Type 'string' is not assignable to type 'number'." in titles


def test_a_linters_letter_severities_rank_its_lines() -> None:
    lines = ["Inspecting 30 files", "", "Offenses:", ""]
    for i in range(30):
        code = "W" if i % 10 == 3 else "C"
        lines += [f"app/file{i}.rb:{i + 1}:3: {code}: Offense number {i}.", "  # raise an error here", "    ^^^^^"]
    lines += ["", "30 files inspected, 30 offenses detected"]
    found = outline_of("\n".join(lines))
    assert found.kind == "log"
    shown = [h.split("\n")[0] for h in found.highlights]
    # W lines only (of one shape: collapsed with their count); conventions (C) and the quoted comment ("an error")
    # are not highlighted
    assert shown == ["L14 (x3) app/file3.rb:4:3: W: Offense number 3."]
    assert found.summary.endswith("it ends: 30 files inspected, 30 offenses detected")
    assert len(found.entries) == 30


# -- a Maven build: its level is not a parallel branch ------------------------------------------------------------
def test_a_level_in_brackets_is_not_a_branch() -> None:
    lines = ["[INFO] --- maven-compiler-plugin:3.10.1:compile (default-compile) @ app ---"]
    lines += [f"[WARNING] /src/A{i}.java:[{i},1] [DefaultPackage] no package" for i in range(30)]
    lines += ["[INFO] BUILD SUCCESS"]
    titles = [e.title for e in outline_of("\n".join(lines)).entries]
    assert titles == ["maven-compiler-plugin:3.10.1:compile (default-compile) @ app"]
    branched = "\n".join(f"[linux] step {i} INFO compiling\n[windows] step {i} INFO compiling" for i in range(20))
    assert [e.title for e in outline_of(branched).entries][:2] == ["[linux]", "[windows]"]


# -- the line a log ends with --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("last", "shown"),
    [
        ("==== 3 failed, 61 passed in 0.21s ====", "3 failed, 61 passed in 0.21s"),
        ("Found 7 errors.", "Found 7 errors."),
        ("[INFO] BUILD FAILURE", "[INFO] BUILD FAILURE"),
        ("+ make rebuild ARCH=i686-linux-gcc41", ""),  # a command, its numbers part of names
        ("src/dss_print.c:386:25:", ""),  # a place, not a count
    ],
)
def test_the_closing_line_is_named_when_it_is_a_result(last: str, shown: str) -> None:
    text = "\n".join(f"2026-01-01 10:00:{i % 60:02d} INFO step {i} done" for i in range(80)) + f"\n{last}\n"
    summary = outline_of(text).summary
    assert (f"it ends: {shown}" in summary) if shown else ("it ends" not in summary)


# -- guards: what the new line shapes must not take -----------------------------------------------------------------
def test_a_markdown_table_is_not_a_log() -> None:
    rows = "\n".join(f"| option{i} | {i} | what option {i} does |" for i in range(40))
    text = f"# Options\n\nThe options.\n\n| name | default | meaning |\n|---|---|---|\n{rows}\n"
    assert kind_of(text) == "markdown"


def test_prose_with_a_few_diagnostics_keeps_its_blocks() -> None:
    text = "\n".join(f"Line {i} of a plain story about nothing in particular." for i in range(200))
    text += "\nsrc/a.c:1:1: error: one\n"
    assert kind_of(text) != "log" or len(outline_of(text).entries) > 1


# -- the corpus documents: what the first answer carries at 2,000 -------------------------------------------------
def test_clippy_output_first_answer_names_every_diagnostic_place(tmp_path: Path) -> None:
    # the fourth diagnostic is the error (its title is clipped: a read names it by id)
    first, res, policy = _shaped((CORPUS / "clippy_gitlab_checks.txt").read_text(), 2000, tmp_path)
    for place in ("src/fs.rs:11:31", "build.rs:9:15", "src/config.rs:20:5", "src/main.rs:76:53"):
        assert place in first
    read = retrieve.read(res.handle, section="4", policy=policy)  # the error, by its id
    assert "clippy::clone_double_ref" in read and "redundant_static_lifetimes" not in read


def test_rubocop_report_first_answer_has_its_result_and_warnings(tmp_path: Path) -> None:
    first, _, _ = _shaped((CORPUS / "rubocop_rails_app.txt").read_text(), 2000, tmp_path)
    assert "55 files inspected, 262 offenses detected" in first
    assert "app/models/user.rb:23:14: W: Assignment in condition" in first
    assert "bin/rails:4:1: W: Do not suppress exceptions" in first


def test_maven_error_prone_first_answer_names_its_plugin_runs(tmp_path: Path) -> None:
    first, _, _ = _shaped((CORPUS / "maven_error_prone.log").read_text(), 2000, tmp_path)
    assert "maven-resources-plugin:3.3.0:testResources" in first
    assert "maven-compiler-plugin:3.10.1:testCompile" in first
    assert "de.i8k.karalight.world.World" in first


# -- a history: one entry per commit, titled by its hash and subject; a section holds its files -------------------
def test_git_log_is_one_entry_per_commit(tmp_path: Path) -> None:
    parts = []
    for i in range(40):
        digest = f"{i:02d}" + "ab3f" * 9 + "cd"
        parts.append(
            f"commit {digest}\nAuthor: Dev <dev@example.org>\nDate:   Mon Jan {i % 28 + 1} 10:00:00 2024 +0000\n\n"
            f"    Change number {i} of the parser\n\n    A longer body for change {i}.\n\n"
            f" src/part{i}.py   | {i + 2} ++--\n tests/test_{i}.py |  4 ++++\n 2 files changed, {i + 4} insertions(+)\n"
        )
    text = "\n".join(parts)
    assert kind_of(text) == "log"
    titles = [e.title for e in outline_of(text).entries]
    assert titles[:2] == [
        f"00{'ab3f' * 2}ab Change number 0 of the parser",
        f"01{'ab3f' * 2}ab Change number 1 of the parser",
    ]
    assert len(titles) == 40
    _, res, policy = _shaped(text, 1000, tmp_path)
    read = retrieve.read(res.handle, section="8", policy=policy)  # the eighth commit, by its id
    assert "src/part7.py" in read and "src/part8.py" not in read


# -- test runners' verdicts in capitals (go test -v) and TAP's ``not ok`` are error lines --------------------------
def test_go_test_verdicts_are_highlighted() -> None:
    names = [f"Test{a}{b}" for a in ("Parse", "Render", "Load", "Store", "Merge") for b in ("Empty", "Large", "Nested")]
    failing = names[::4]
    lines = []
    for name in names * 2:
        lines += [f"=== RUN   {name}", f"    {name.lower()}_test.go:12: got 1, want 2" if name in failing else "ok"]
        lines += [f"--- {'FAIL' if name in failing else 'PASS'}: {name} (0.00s)"]
    lines += ["FAIL", "FAIL\texample.org/pkg\t0.012s"]
    found = outline_of("\n".join(lines))
    shown = [h.split("\n")[0] for h in found.highlights]
    for name in failing:
        assert any(f"--- FAIL: {name} (0.00s)" in h for h in shown), name
    assert not any("PASS" in h for h in shown)


def test_tap_is_a_log_and_its_failures_are_highlighted() -> None:
    lines = ["TAP version 13", "1..60"]
    for i in range(1, 61):
        lines.append(f"{'not ok' if i % 20 == 0 else 'ok'} {i} - parses case {i}")
        if i % 20 == 0:
            lines += ["  ---", f"  message: 'expected {i} got {i + 1}'", "  ..."]
    text = "\n".join(lines)
    assert kind_of(text) == "log"
    shown = [h.split("\n")[0] for h in outline_of(text).highlights]
    assert shown and all("not ok" in h for h in shown)  # the failures only, never an ``ok`` line
    assert any("not ok 20 - parses case 20" in h for h in shown)

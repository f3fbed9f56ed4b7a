"""The way back by structure: ``section``, ``lines`` and ``grep`` in ``hostshape.wayback.retrieve.read``, the adapters'
shared ``read_page`` and ``hostshape read``; every page within the budget, ``next`` to continue."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hostshape import Policy, shape
from hostshape.adapters._shared import read_page
from hostshape.cli import main
from hostshape.examples import payload_path, payload_text
from hostshape.tokens import count_tokens
from hostshape.wayback.retrieve import CANNOT_READ_PART, read

README = payload_text("awesome_python_README.md")
LINES = README.splitlines()
HTML = payload_text("v8_blog_standalone_wasm.html")
HANDLE = re.compile(r"handle=(hs_[0-9a-f]{24})")
NEXT = re.compile(r"next=(\S+)")


def policy_for(tmp_path: Path, budget: int) -> Policy:
    return Policy(budget=budget, spill_dir=tmp_path / "spill", retrieval_tool="hostshape_read")


def first_answer(text: str, tmp_path: Path, budget: int = 2000) -> tuple[str, str]:
    shaped = shape(text, policy=policy_for(tmp_path, budget))
    found = HANDLE.search(shaped.text.splitlines()[-1])
    assert found, shaped.text[-300:]
    return shaped.text, found.group(1)


def body_of(page: str) -> str:
    """A page without its header line and its envelope line."""
    return "\n".join(page.split("\n")[1:-1])


def test_a_section_is_read_by_its_id_its_title_or_its_outline_line(tmp_path: Path) -> None:
    answer, handle = first_answer(README, tmp_path)
    policy = policy_for(tmp_path, 2000)
    line = next(x.strip() for x in answer.splitlines() if x.strip().startswith("1.3.14 "))
    pages = [read(handle, section=wanted, policy=policy) for wanted in ("1.3.14", "Admin Panels", "admin panels", line)]
    assert len(set(pages)) == 1
    page = pages[0]
    assert page.startswith("markdown document, section 1.3.14 'Admin Panels' (lines 330-337 of 1,183):")
    assert body_of(page) == "\n".join(LINES[329:337]).rstrip("\n")
    assert "next=" not in page and count_tokens(page) <= 2000


GO = 'package shop\n\nimport "fmt"\n\n' + "".join(
    f'// Step{i} runs step {i}.\nfunc (c *Cart) Step{i}(n int) error {{\n\treturn fmt.Errorf("step {i}: %d", n)\n}}\n\n'
    for i in range(400)
)


def test_a_compact_outline_names_each_part_by_what_it_defines_and_reads_it_back_by_that_name(tmp_path: Path) -> None:
    """Where the outline is too long for one line per entry, it shows what each entry defines (``Cart.Step7``),
    and a ``section`` read takes that name as it takes a title, with the entry's doc comment."""
    answer, handle = first_answer(GO, tmp_path, budget=2000)
    assert re.search(r"\n1-\d+: Cart\.Step0 · Cart\.Step1 · Cart\.Step2 · ", answer)
    page = read(handle, section="Cart.Step7", policy=policy_for(tmp_path, 2000))
    assert "section 8 'func (c *Cart) Step7(n int) error'" in page
    assert "// Step7 runs step 7." in page and "Step8" not in page


def test_following_next_reads_every_line_of_a_section_once(tmp_path: Path) -> None:
    _, handle = first_answer(README, tmp_path)
    policy = policy_for(tmp_path, 400)
    page = read(handle, section="Projects", policy=policy)
    bodies = []
    for _ in range(200):
        assert count_tokens(page) <= 400
        bodies.append(body_of(page))
        cursor = NEXT.search(page.splitlines()[-1])
        if cursor is None:
            break
        page = read(handle, cursor=cursor.group(1), policy=policy)
    assert len(bodies) > 10
    assert "".join(bodies).replace("\n", "") == "".join(LINES[128:1153])


def test_lines_reads_a_range_and_says_where_it_is(tmp_path: Path) -> None:
    _, handle = first_answer(README, tmp_path)
    page = read(handle, lines="330-337", policy=policy_for(tmp_path, 2000))
    assert page.startswith("markdown document, lines 330-337 of 1,183:")
    assert body_of(page) == "\n".join(LINES[329:337]).rstrip("\n")
    assert "lines 330-337 of 330-337" in page.splitlines()[-1]


def test_grep_finds_lines_with_context_literal_or_re2(tmp_path: Path) -> None:
    _, handle = first_answer(README, tmp_path)
    policy = policy_for(tmp_path, 4000)
    page = read(handle, grep="django", policy=policy)
    assert page.startswith("grep 'django' (RE2 expression, any case):")
    matching = [x for x in page.splitlines() if re.match(r"\d+: ", x)]
    assert matching and all("django" in x.lower() for x in matching)
    number = int(matching[0].split(":")[0])
    assert LINES[number - 1] in matching[0]
    assert any(re.match(rf"{number - 1}- ", x) for x in page.splitlines())  # context before
    either = read(handle, grep="^#+ (Web Frameworks|ORM)$", policy=policy)
    assert "### Web Frameworks" in either and "### ORM" in either
    none = read(handle, grep="no such words here", policy=policy)
    assert "no line matches" in none and count_tokens(none) <= 4000


def test_grep_pages_continue_with_next(tmp_path: Path) -> None:
    _, handle = first_answer(README, tmp_path)
    policy = policy_for(tmp_path, 500)
    page = read(handle, grep="github.com", policy=policy)
    seen: set[int] = set()
    for _ in range(400):
        assert count_tokens(page) <= 500
        seen |= {int(x.split(":")[0]) for x in page.splitlines() if re.match(r"\d+: ", x)}
        cursor = NEXT.search(page.splitlines()[-1])
        if cursor is None:
            break
        page = read(handle, cursor=cursor.group(1), policy=policy)
    expected = {n for n, line in enumerate(LINES, 1) if "github.com" in line}
    assert seen == expected


@pytest.mark.parametrize(
    ("part", "says"),
    [
        ({"section": "No Such Heading"}, "no section 'No Such Heading' in this document"),
        ({"lines": "abc"}, "lines must be START-END"),
        ({"lines": "5000-6000"}, "outside this document: it has lines 1-1,183"),
        ({"grep": "(a)\\1"}, "not an RE2 expression"),
        ({"grep": "x*"}, "matches empty text"),
    ],
)
def test_a_part_that_does_not_apply_says_what_does(tmp_path: Path, part: dict[str, str], says: str) -> None:
    _, handle = first_answer(README, tmp_path)
    page = read(handle, policy=policy_for(tmp_path, 1000), **part)
    assert page.startswith(CANNOT_READ_PART) and says in page and count_tokens(page) <= 1000


def test_one_part_at_a_time_and_no_query_on_text(tmp_path: Path) -> None:
    _, handle = first_answer(README, tmp_path)
    policy = policy_for(tmp_path, 1000)
    assert "one of section, lines or grep" in read(handle, section="1", grep="x", policy=policy)
    assert "query picks from JSON results" in read(handle, query="[0]", lines="1-2", policy=policy)
    assert "with section, lines or grep" in read(handle, query="[0]", policy=policy)


def test_an_html_section_is_read_as_readable_text(tmp_path: Path) -> None:
    answer, handle = first_answer(HTML, tmp_path, 1500)
    assert "Running in Wasm runtimes" in answer and "<script" not in answer
    page = read(handle, section="Running in Wasm runtimes", policy=policy_for(tmp_path, 1500))
    assert page.startswith("html document, section 1.1.2 'Running in Wasm runtimes'")
    assert "wasmtime" in page.lower() and "<span" not in page and "<div" not in page


def test_every_page_fits_at_every_budget(tmp_path: Path) -> None:
    _, handle = first_answer(README, tmp_path)
    for budget in (120, 200, 300, 500, 800, 1500, 3000, 8000):
        policy = policy_for(tmp_path, budget)
        for part in ({"section": "1.3"}, {"lines": "1-1183"}, {"grep": "python"}, {"section": "nope"}):
            page = read(handle, policy=policy, **part)
            assert 0 < count_tokens(page) <= budget, (budget, part, page)


def test_the_adapters_read_page_passes_the_part_on(tmp_path: Path) -> None:
    _, handle = first_answer(README, tmp_path)
    page = read_page(handle, "", "", section="Admin Panels", policy=policy_for(tmp_path, 2000))
    assert body_of(page) == "\n".join(LINES[329:337]).rstrip("\n")


# -- hostshape read -----------------------------------------------------------------------------------------------
@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder whose policy keeps spills under tmp_path; no user policy is found."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("HOSTSHAPE_POLICY", raising=False)
    (tmp_path / ".hostshape.toml").write_text(f'[spill]\ndir = "{tmp_path / "spill"}"\n')
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_hostshape_read_takes_section_lines_and_grep(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "shape", str(payload_path("awesome_python_README.md")), "--budget", "1500")
    assert code == 0
    last = out.splitlines()[-1]
    assert "--section ID|TITLE" in last and "--grep PATTERN" in last and "--query" not in last
    handle = HANDLE.search(last).group(1)  # type: ignore[union-attr]
    code, page, _ = run(capsys, "read", handle, "--section", "Admin Panels")
    assert code == 0 and body_of(page) == "\n".join(LINES[329:337]).rstrip("\n")
    code, page, _ = run(capsys, "read", handle, "--lines", "330-331")
    assert code == 0 and body_of(page) == "\n".join(LINES[329:331]).rstrip("\n")
    code, page, _ = run(capsys, "read", handle, "--grep", "-framework")  # a pattern may start with a dash
    assert code == 0 and "-framework" in page.lower()
    code, _, err = run(capsys, "read", handle, "--lines", "x-y")
    assert code == 2 and "lines must be START-END" in err
    code, _, err = run(capsys, "read", handle, "--section", "1", "--query", "[0]")
    assert code == 2 and "--query picks from JSON results" in err


@pytest.mark.parametrize("budget", range(90, 200, 11))
def test_a_cut_page_names_where_to_read_on_even_without_room_for_a_cursor(tmp_path: Path, budget: int) -> None:
    """At budgets too small for ``next=``, the envelope still names the lines left to read (from a line shown only in
    part, or the one after the last shown), so nothing is cut silently."""
    _, handle = first_answer(README, tmp_path)
    for section in ("1.3.14", "Projects", "1.2"):
        page = read(handle, section=section, policy=policy_for(tmp_path, budget))
        last = page.splitlines()[-1]
        assert count_tokens(page) <= budget
        if "truncated" in last and "next=" not in last and "handle=" in last:
            found = re.search(
                r"lines [\d,]+-([\d,]+) of [\d,]+-[\d,]+( and part of line ([\d,]+))?; lines ([\d,]+)-", last
            )
            assert found, last
            whole, partly, resume = found.group(1), found.group(3), found.group(4)
            assert int(resume.replace(",", "")) == int((partly or whole).replace(",", "")) + (0 if partly else 1)

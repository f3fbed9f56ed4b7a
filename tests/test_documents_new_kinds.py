"""Kinds of documents told apart by their own syntax: Jupyter notebooks (nbformat JSON), AsciiDoc, Org, man pages
(roff and rendered), TOML/INI configs and SQL scripts. Each asserts what the model receives from ``shape`` and
``hostshape_read`` (real files of corpus/documents, provenance in its PROVENANCE.md)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from hostshape import Policy, shape
from hostshape.documents import kind_of, outline_of
from hostshape.tokens import count_tokens
from hostshape.wayback.retrieve import read

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "documents"
BUDGETS = (300, 2000, 4000, 8000)
HANDLE = re.compile(r"handle=(hs_[0-9a-f]{24})")


def text_of(name: str) -> str:
    return (CORPUS / name).read_text(encoding="utf-8")


def policy_for(tmp_path: Path, budget: int) -> Policy:
    return Policy(budget=budget, spill_dir=tmp_path / "spill", retrieval_tool="hostshape_read")


def notebook(cells: list[dict], **metadata: object) -> str:
    return json.dumps({"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def code(source: str, *outputs: dict, count: int = 1) -> dict:
    return {"cell_type": "code", "execution_count": count, "metadata": {}, "source": source, "outputs": list(outputs)}


def markdown(source: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


FAILED = {
    "output_type": "error",
    "ename": "KeyError",
    "evalue": "'price'",
    "traceback": ["\x1b[0;31mKeyError\x1b[0m Traceback (most recent call last)", "----> 3 df['price']"],
}


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("nbconvert_library.ipynb", "notebook"),
        ("asciidoctor_CHANGELOG.adoc", "asciidoc"),
        ("doom_getting_started.org", "org"),
        ("tmux.1", "manpage"),
        ("tmux_1_rendered.txt", "manpage"),
        ("ipython_pyproject.toml", "config"),
        ("sakila_postgres_schema.sql", "sql"),
    ],
)
def test_each_new_kind_is_told_from_its_content(name: str, kind: str) -> None:
    assert kind_of(text_of(name)) == kind


@pytest.mark.parametrize(
    "name",
    [
        "nbconvert_library.ipynb",
        "nbconvert_notebook2.ipynb",
        "asciidoctor_CHANGELOG.adoc",
        "doom_getting_started.org",
        "tmux.1",
        "tmux_1_rendered.txt",
        "ipython_pyproject.toml",
        "sakila_postgres_schema.sql",
    ],
)
def test_every_answer_fits_the_budget_and_is_an_outline(name: str, tmp_path: Path) -> None:
    text = text_of(name)
    for budget in BUDGETS:
        shaped = shape(text, policy=policy_for(tmp_path, budget))
        assert count_tokens(shaped.text) <= budget, (name, budget)
        assert shaped.text.strip()
        if budget >= 2000 and shaped.strategy not in ("compact", "passthrough"):
            answer = json.loads(shaped.text)["document"] if shaped.is_json else shaped.text
            assert answer.split(" document: ", 1)[0] in ("notebook", "asciidoc", "org", "man page", "config", "sql")


def test_a_notebook_answer_stays_json_with_the_map_of_its_cells(tmp_path: Path) -> None:
    shaped = shape(text_of("nbconvert_notebook2.ipynb"), policy=policy_for(tmp_path, 2000))

    answer = json.loads(shaped.text)
    document = answer["document"]
    assert shaped.is_json and answer["_hostshape"]["truncated"] is True
    assert document.startswith("notebook document: ")
    assert "17 cells (9 code, 8 markdown)" in document
    assert "1 NumPy and Matplotlib examples (L" in document
    assert "cell 14 code: plt.hist(evs.real)" in document
    # images are named with the query that reads them, never inlined
    assert 'read it with the query cells[13].outputs[1].data."image/png"' in document
    assert "iVBORw0KGgo" not in shaped.text


def test_a_notebooks_errors_come_first_and_its_cells_read_back(tmp_path: Path) -> None:
    cells = [markdown("# Prices\nLoad the data."), code("import pandas as pd\ndf = load()\ndf['price']", FAILED)]
    cells += [
        code(f"step_{i}()\n" + "x = 1\n" * 40, {"output_type": "stream", "name": "stdout", "text": "ok\n"})
        for i in range(30)
    ]
    policy = policy_for(tmp_path, 2000)
    shaped = shape(notebook(cells, kernelspec={"name": "python3", "language": "python"}), policy=policy)

    envelope, document = json.loads(shaped.text)["_hostshape"], json.loads(shaped.text)["document"]
    assert "1 error" in document.split("\n", 1)[0]
    assert "Errors in outputs:\nL" in document and "cell 2: KeyError: 'price'" in document
    assert "cell 2 code (KeyError): import pandas as pd" in document
    page = read(envelope["handle"], section="cell 2", policy=policy)
    assert "df['price']" in page and "KeyError: 'price'" in page and "\x1b[" not in page
    found = read(envelope["handle"], grep="step_29", policy=policy)
    assert "step_29()" in found
    image = read(envelope["handle"], query="cells[1].outputs[0].ename", policy=policy)
    assert "KeyError" in image


def test_a_notebook_with_a_5_mb_image_sets_it_aside(tmp_path: Path) -> None:
    png = {
        "output_type": "display_data",
        "metadata": {},
        "data": {"image/png": base64.b64encode(b"\x89PNG" * 1_250_000).decode()},
    }
    text = notebook([markdown("# Plot"), code("plot()", png)])
    for budget in (300, 2000):
        shaped = shape(text, policy=policy_for(tmp_path, budget))
        assert count_tokens(shaped.text) <= budget and json.loads(shaped.text)
    assert "image/png, 6,666,668 characters: set aside" in json.loads(shaped.text)["document"]


@pytest.mark.parametrize(
    "text",
    [
        notebook([markdown("# A"), *[code(f"x = {i}") for i in range(400)]])[:-40],  # broken JSON
        '{"cells": [' + '{"a": [' * 3000 + "]}" * 3000 + '], "nbformat": 4}',  # nested too deep to parse
        json.dumps({"cells": [1, None, {"cell_type": 5, "source": {"a": 1}, "outputs": "no"}], "nbformat": 4})
        + " " * 30_000,
    ],
)
def test_a_hostile_notebook_gets_a_shaped_json_answer(text: str, tmp_path: Path) -> None:
    for budget in (300, 2000):
        shaped = shape(text, policy=policy_for(tmp_path, budget))
        assert count_tokens(shaped.text) <= budget and shaped.text.strip()
        assert json.loads(shaped.text)


def test_a_changelog_in_asciidoc_lists_its_versions(tmp_path: Path) -> None:
    shaped = shape(text_of("asciidoctor_CHANGELOG.adoc"), policy=policy_for(tmp_path, 2000))

    assert "1.2 2.0.26 (2025-10-24) - @mojavelinux" in shaped.text
    assert "2.0.0 (2019-03-22)" in shaped.text and "Older releases (pre-0.0.1)" in shaped.text
    handle = HANDLE.search(shaped.text.splitlines()[-1]).group(1)  # type: ignore[union-attr]
    page = read(handle, section="2.0.26 (2025-10-24) - @mojavelinux", policy=policy_for(tmp_path, 2000))
    assert "thin space between dots of an ellipsis" in page


def test_org_headlines_skip_source_blocks() -> None:
    found = outline_of(text_of("doom_getting_started.org"))
    titles = [e.title for e in found.entries]

    assert found.kind == "org" and titles[:4] == ["Table of Contents", "Install", "Emacs & dependencies", "On Linux"]
    assert not any("ripgrep and fd-find won't be available" in t for t in titles)  # a shell comment in a block


def test_a_man_page_outlines_its_sections_and_commands(tmp_path: Path) -> None:
    shaped = shape(text_of("tmux.1"), policy=policy_for(tmp_path, 4000))

    assert shaped.text.startswith("man page document: 9,384 lines") and "tmux(1)" in shaped.text
    assert "WINDOWS AND PANES (L" in shaped.text and "split-window" in shaped.text
    rendered = outline_of(text_of("tmux_1_rendered.txt")).entries
    sections = [e.title for e in rendered if e.level == 1]
    assert sections[:3] == ["NAME", "SYNOPSIS", "DESCRIPTION"] and "STATUS LINE" in sections
    tags = {e.name: e.start for e in rendered if e.level == 2}
    assert tags["-L"] == 75 and "split-window" in tags and "attach-session" in tags  # flags and commands


def test_a_toml_config_that_opens_with_a_table_is_a_document_not_broken_json(tmp_path: Path) -> None:
    shaped = shape(text_of("ipython_pyproject.toml"), policy=policy_for(tmp_path, 2000))

    assert not shaped.is_json and shaped.text.startswith("config document: 585 lines")
    assert "1 [build-system] (L1-7" in shaped.text and "[tool.mypy] (L99-352" in shaped.text
    assert "[[tool.mypy.overrides]] module = [" in shaped.text  # an array of tables by its first key
    handle = HANDLE.search(shaped.text.splitlines()[-1]).group(1)  # type: ignore[union-attr]
    assert 'target-version = "py311"' in read(handle, section="[tool.ruff]", policy=policy_for(tmp_path, 2000))


def test_ini_sections_and_keys() -> None:
    found = outline_of("; settings\n[server]\nhost = example.org\nport = 8080\n\n[client]\nretries = 3\nname = x\n")

    assert found.kind == "config"
    assert [(e.title, e.level) for e in found.entries][:3] == [
        ("[server]", 1),
        ("host = example.org", 2),
        ("port = 8080", 2),
    ]


def test_a_sql_schema_names_its_tables_views_and_functions(tmp_path: Path) -> None:
    shaped = shape(text_of("sakila_postgres_schema.sql"), policy=policy_for(tmp_path, 2000))

    for name in ("CREATE TABLE actor", "CREATE VIEW actor_info", "CREATE FUNCTION rewards_report"):
        assert name in shaped.text
    assert "SET (5 statements)" in shaped.text
    handle = HANDLE.search(shaped.text.splitlines()[-1]).group(1)  # type: ignore[union-attr]
    page = read(handle, section="CREATE TABLE actor", policy=policy_for(tmp_path, 2000))
    assert "first_name character varying(45)" in page and "OWNER TO postgres" in page  # its ALTER joins it


def test_markdown_with_shell_comments_is_not_mistaken_for_these_kinds() -> None:
    text = "# Title\n\nSome text.\n\n```sh\n# a comment\nmake\n```\n\n## Usage\n\n- item [x](y)\n"
    assert kind_of(text) == "markdown"


TRX = """<?xml version="1.0" encoding="utf-8"?>
<TestRun id="1" xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">
  <Results>
    <UnitTestResult testId="a" testName="Adds_numbers" outcome="Passed" />
    <UnitTestResult testId="b" testName="Divides_by_zero" outcome="Failed">
      <Output>
        <ErrorInfo>
          <Message>Expected DivideByZeroException</Message>
        </ErrorInfo>
      </Output>
    </UnitTestResult>
  </Results>
  <ResultSummary outcome="Completed" />
</TestRun>
"""


def test_other_test_report_formats_name_their_failed_results_first() -> None:
    """A TRX (or NUnit, xUnit) report marks results by an outcome attribute: the failed ones lead the map."""
    found = outline_of(TRX)

    assert found.kind == "xml" and found.summary.endswith("; 1 failed")
    # ... with what they say (round 12: the first message-like text below a failed result)
    assert found.highlights == ("L5 UnitTestResult Divides_by_zero Failed: Expected DivideByZeroException",)
    assert "UnitTestResult Divides_by_zero Failed: Expected DivideByZeroException" in [e.title for e in found.entries]


TYPESCRIPT = """import * as core from '@actions/core'
import {getReport} from './report/get-report'
import {TestParser} from './test-parser'

export class Reporter {
  readonly name = core.getInput('name', {required: true})

  constructor(private readonly token: string) {
    this.token = token
  }

  async run(): Promise<void> {
    if (this.token) {
      await this.report(this.token)
    }
    describe('x', function () {
      it('works', () => {})
    })
  }

  private report(token: string, files: string[] = []): number {
    for (const file of files) {
      console.log(file)
    }
    return files.length
  }
}
"""


def test_a_typescript_class_outlines_its_methods_not_its_calls() -> None:
    found = outline_of(TYPESCRIPT)

    assert [(e.name, e.level) for e in found.entries] == [
        ("Reporter", 1),
        ("constructor", 2),
        ("run", 2),
        ("report", 2),
    ]


def test_a_version_3_notebook_is_read_by_its_worksheets() -> None:
    cell = {"cell_type": "code", "input": ["1/0"], "language": "python", "prompt_number": 1, "metadata": {}}
    cell["outputs"] = [
        {"output_type": "pyerr", "ename": "ZeroDivisionError", "evalue": "division by zero", "traceback": []},
        {"output_type": "display_data", "png": "iVBORw0KGgo=", "metadata": {}},
    ]
    heading = {"cell_type": "heading", "level": 1, "metadata": {}, "source": ["Title"]}
    text = json.dumps(
        {"metadata": {"name": "x"}, "nbformat": 3, "nbformat_minor": 0, "worksheets": [{"cells": [heading, cell]}]}
    )

    found = outline_of(text)
    assert kind_of(text) == "notebook" and found.summary.startswith("2 cells (1 code, 1 heading); 1 error")
    assert [e.title for e in found.entries] == ["Title", "cell 2 code (ZeroDivisionError): 1/0"]
    assert "read it with the query worksheets[0].cells[1].outputs[1].png" in (found.body or "")


def test_a_pytest_run_is_a_log_of_its_failures(tmp_path: Path) -> None:
    text = text_of("pytest_failures.log")
    shaped = shape(text * 4, policy=policy_for(tmp_path, 2000))

    assert kind_of(text) == "log" and shaped.text.startswith("log document: ")
    assert "3 test_division (L79-86" in shaped.text and "5 TestGroup.test_dict (L98-115" in shaped.text
    errors = shaped.text.split("Errors and warnings:\n", 1)[1]
    assert "test_sample.py::test_division FAILED" in errors and "E       ZeroDivisionError: division by zero" in errors


@pytest.mark.parametrize(
    "text",
    [
        "#+title: x\n#+startup: y\n" + "".join(f"* Headline {i}\ntext\n" for i in range(30_000)),
        "".join(f"CREATE TABLE t{i} (a int);\nALTER TABLE t{i} OWNER TO x;\n" for i in range(30_000)),
        '[a]\nk = 1\n[b]\nv = "' + "x " * 1_000_000 + '"\n',  # a 2 MB value on one line
        ".TH X 1\n.SH NAME\n" + "".join(f".TP\n.B -o{i}\ntext\n" for i in range(30_000)),
        "X(1)  X(1)\n\nNAME\n     x - y\n\nDESCRIPTION\n"
        + "".join(f"     -o{i}\n          text\n" for i in range(30_000)),
        "= T\n:a: b\n== " + " " * 200_000 + "x\n== y\n[source]\n----\n",
    ],
)
def test_huge_documents_of_the_new_kinds_fit_the_budget(text: str, tmp_path: Path) -> None:
    for budget in (300, 2000):
        shaped = shape(text, policy=policy_for(tmp_path, budget))
        assert count_tokens(shaped.text) <= budget and shaped.text.strip()


def test_a_sql_dump_counts_every_statement_past_the_outlines_cap() -> None:
    found = outline_of("".join(f"CREATE TABLE t{i} (a int);\nALTER TABLE t{i} OWNER TO x;\n" for i in range(25_000)))

    assert found.summary == "statements: 25,000 CREATE, 25,000 ALTER" and len(found.entries) == 20_000


PAPER = r"""\documentclass[11pt]{article}
\usepackage{amsmath}
\usepackage{graphicx}
% A sample paper written for the hostshape tests.
\title{Shaping Tool Results for Language Models}
\author{A. Writer}
\begin{document}
\maketitle
\begin{abstract}
We show how to fit any tool result into a token budget.
\end{abstract}

\section{Introduction}
\label{sec:intro}
Agents read tool results. Some are long.

\section{Method}
\subsection{Outlines}
Each document gets a map.
\begin{verbatim}
\section{Not a section}
\end{verbatim}
\subsection*{Budgets}
Every answer fits.
\subsubsection{Counting tokens}
We count with o200k.
\paragraph{Caveats.} None.

\section{Results}
\begin{table}[h]
\caption{Recall by budget}
\end{table}
% \section{Commented out}
\section{Conclusion}
Done.
\appendix
\section{Proofs}
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
"""


def test_a_latex_source_outlines_its_sections_not_its_verbatim_or_comments(tmp_path: Path) -> None:
    found = outline_of(PAPER)

    assert kind_of(PAPER) == "latex" and found.summary == "Shaping Tool Results for Language Models"
    assert [(e.title, e.level) for e in found.entries][:7] == [
        ("abstract", 3),
        ("Introduction", 3),
        ("Method", 3),
        ("Outlines", 4),
        ("Budgets", 4),
        ("Counting tokens", 5),
        ("Caveats.", 6),
    ]
    titles = [e.title for e in found.entries]
    assert "Not a section" not in titles and "Commented out" not in titles and "bibliography" in titles
    shaped = shape(PAPER * 30, policy=policy_for(tmp_path, 2000))
    assert shaped.text.startswith("latex document: ") and count_tokens(shaped.text) <= 2000

"""SQL scripts (schemas, migrations, dumps): one entry per statement that defines or changes something (``CREATE
TABLE film``, ``ALTER TABLE ONLY film ADD CONSTRAINT ...``), named by what it names; runs of the same statement on
the same table (a dump's ``INSERT INTO film`` rows, its ``SET`` lines) are one entry with their count. Read line by
line (linear): a statement is a line that starts with its keyword."""

from __future__ import annotations

import re

from hostshape.documents.model import MAX_ENTRIES, Entry, Outline, kept, title_of

_VERB = (
    r"CREATE|ALTER|DROP|INSERT[ \t]+INTO|COPY|COMMENT[ \t]+ON|GRANT|REVOKE|SET|SELECT|UPDATE|DELETE[ \t]+FROM|"
    r"TRUNCATE|WITH|BEGIN|COMMIT|REPLACE[ \t]+INTO|DO|USE|PRAGMA"
)
_STATEMENT = re.compile(rf"({_VERB})\b[ \t]*(.*)$", re.I)
_STATEMENT_LINE = re.compile(rf"^(?:{_VERB})\b", re.I | re.M)
_DEFINES = re.compile(
    r"(?:(?:OR[ \t]+REPLACE|TEMP(?:ORARY)?|UNIQUE|MATERIALIZED|GLOBAL|IF[ \t]+(?:NOT[ \t]+)?EXISTS|ONLY)[ \t]+)*"
    r"(TABLE|VIEW|INDEX|FUNCTION|PROCEDURE|TRIGGER|SEQUENCE|TYPE|DOMAIN|SCHEMA|DATABASE|EXTENSION|AGGREGATE|RULE|"
    r"POLICY|ROLE|USER)?[ \t]*(?:(?:OR[ \t]+REPLACE|IF[ \t]+(?:NOT[ \t]+)?EXISTS|ONLY)[ \t]+)*([\w.\"`\[\]$]+)?",
    re.I,
)
# Statement openings no other text writes, and the share of a sample's lines they make up in SQL at least.
_SQL_ONLY = re.compile(
    r"^(?:CREATE[ \t]+(?:OR[ \t]+REPLACE[ \t]+)?(?:(?:UNIQUE|TEMP|TEMPORARY|MATERIALIZED|GLOBAL)[ \t]+)*"
    r"(?:TABLE|VIEW|INDEX|FUNCTION|PROCEDURE|TRIGGER|SEQUENCE|TYPE|DOMAIN|SCHEMA|DATABASE|EXTENSION)\b"
    r"|ALTER[ \t]+(?:TABLE|SEQUENCE|VIEW|INDEX|FUNCTION|TYPE|SCHEMA|DATABASE)\b|DROP[ \t]+(?:TABLE|VIEW|INDEX)\b"
    r"|(?:INSERT|REPLACE)(?:[ \t]+OR[ \t]+\w+)?[ \t]+INTO[ \t]+\S|DELETE[ \t]+FROM[ \t]+\S|UPDATE[ \t]+\S+[ \t]+SET\b"
    r"|SELECT\b.{0,300}?\bFROM\b|COPY[ \t]+\S+.{0,300}?\bFROM\b|(?:GRANT|REVOKE)\b.{0,300}?\bON\b)",
    re.I | re.M,
)
_SQL_SHARE = 0.04
# Lines of a program around SQL held in its strings (Python, JavaScript, C): SQL writes none of them.
_PROGRAM_LINE = re.compile(
    r"^[ \t]*(?:def [A-Za-z_]|class [A-Za-z_]\w*[(:{ ]|import [\w{*]|from [\w.]+ import |function[ (]|const |let |"
    r"#include\b|self\.|this\.|export )",
    re.M,
)
_RUNS = ("INSERT INTO", "SET", "COPY", "REPLACE INTO", "COMMENT ON", "GRANT", "REVOKE")
# Statements that change what the entry above defines join it (a dump's ``ALTER TABLE x OWNER TO ...``).
_FOLLOWERS = ("ALTER", "COMMENT ON", "GRANT", "REVOKE")
_DOLLAR = re.compile(r"\$[A-Za-z_]*\$")
# What a dollar quote inside does not open or close: a string literal (``'costs $$'``) and a ``--`` comment.
_LITERAL_OR_COMMENT = re.compile(r"'(?:[^']|'')*'|--.*")


def looks_like_sql(sample: str) -> bool:
    """At least three lines that start a statement, and statements ended by ``;``; at least three of them in a
    form only SQL writes (``CREATE TABLE x``, ``INSERT INTO x``: prose's "Do not", "create any" are not), those a
    share of the lines and outnumbering a program's own lines (a program holding statements in its strings is
    code)."""
    starts = len(_STATEMENT_LINE.findall(sample))
    ends = sample.count(";\n") + sample.rstrip().endswith(";")
    if starts < 3 or ends < 3:
        return False
    strong = len(_SQL_ONLY.findall(sample))
    lines = sample.count("\n") - sample.count("\n\n")
    return strong >= 3 and strong >= _SQL_SHARE * lines and len(_PROGRAM_LINE.findall(sample)) < strong


def outline(text: str) -> Outline | None:
    """The statements of ``text``, runs grouped, or None when there are none."""
    entries: list[Entry] = []
    run: tuple[str, str] | None = None
    run_count = 0
    counts: dict[str, int] = {}
    dollar = False  # inside a $$-quoted function body
    for number, line in enumerate(text.split("\n"), 1):
        line = line[:4000]
        inside = dollar
        if "$" in line and len(_DOLLAR.findall(_LITERAL_OR_COMMENT.sub("", line))) % 2:
            dollar = not dollar
        if inside:
            continue
        found = _STATEMENT.match(line)
        if not found:
            continue
        verb = " ".join(found.group(1).upper().split())
        what = _DEFINES.match(found.group(2))
        kind = (what.group(1) or "").upper() if what else ""
        name = (what.group(2) or "").strip('"`[]') if what else ""
        counts[verb] = counts.get(verb, 0) + 1  # every statement is counted, past MAX_ENTRIES too
        if len(entries) > MAX_ENTRIES:
            continue
        if verb in _FOLLOWERS and entries and name and _bare(name) == _bare(entries[-1].name):
            continue
        key = (verb, name if verb != "SET" else "")
        if verb in _RUNS and run == key and entries:
            run_count += 1
            last = entries[-1]
            entries[-1] = Entry(f"{_run_title(verb, name)} ({run_count:,} statements)", 1, last.start, 0, last.name)
            continue
        run, run_count = key, 1
        title = title_of(f"{verb} {kind} {name}" if kind and verb == "CREATE" else line.strip(), 100)
        entries.append(Entry(title, 1, number, name=name))
    if not entries:
        return None
    shown, notes = kept(entries, (), "statements")
    summary = ", ".join(f"{n:,} {verb}" for verb, n in sorted(counts.items(), key=lambda item: -item[1])[:6])
    return Outline("sql", shown, summary=f"statements: {summary}", notes=notes)


def _bare(name: str) -> str:
    """A name without its schema (``public.actor`` -> ``actor``), in lower case."""
    return name.rsplit(".", 1)[-1].strip('"`[]').lower()


def _run_title(verb: str, name: str) -> str:
    return verb if verb == "SET" else f"{verb} {name}".strip()

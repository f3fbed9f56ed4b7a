"""Logs (CI and build output, application logs): the steps as the outline (GitHub Actions groups, ``Step n/m``,
Gradle tasks, Maven plugin runs, BuildKit steps, ``RUN:`` and ``$`` commands, ``==>``, ``===`` and ``***`` banners,
a test runner's ``___ test_name ___`` failure reports;
under the parallel branch a ``[branch]`` line prefix names), else even blocks of lines; error and warning lines
with the line after them as highlights, errors first, repeated lines collapsed with their count (lines that differ
only in numbers, or that end with the same ``[category]``, such as a compiler's ``[-Wunused-result]``).

There is no parser for logs in general: lines are matched one by one with anchored patterns, in linear time. A log
without steps is outlined by even blocks of lines."""

from __future__ import annotations

import re

from hostshape.documents import prose
from hostshape.documents.model import MAX_ENTRIES, MAX_HIGHLIGHTS, Entry, Outline, clip, title_of

_STEP = re.compile(
    r"(?:\S+Z )?(?:##\[group\]|::group::)(?P<a>.+)"
    r"|(?:\S+Z )?##\[section\](?P<b>.+)"
    r"|Step (?P<c>\d+/\d+ ?:.+)"
    r"|> Task (?P<d>:\S+)"
    r"|\[INFO\] --- (?P<e>.+?) ---"
    r"|#\d+ (?P<f>\[[^\]]{1,60}\] .+)"
    r"|==> (?P<g>.+)"
    r"|=+ (?P<h>[^=].{0,100}?) =+$"
    r"|={3,}(?!=)[ \t]*(?![Dd]one|[Ff]inished|[Ee]nd)(?P<i>[^=\s-].{0,100}?)[ =]*$"
    r"|\*{3} (?P<j>\S.{0,100})"
    r"|(?:RUN:|\$) (?P<k>\S.{0,100})"
    r"|commit (?P<m>[0-9a-f]{7,40})\b"  # one commit of a history (``git log``): titled by its subject
    r"|_{3,} (?P<l>\S.{0,100}?) _{3,}$"  # a test runner's report of one failed test (pytest)
    r"|-{4} (?P<n>\S.{0,100}?) (?:stdout|stderr) -{4}$"  # ... and cargo test's
    r'|\s*Project "[^"\n]{1,300}" is building "(?P<o>[^"\n]{1,300})"'  # one project of an MSBuild run
    r"|\s*# (?P<p>\S+ (?:will be|must be) \S.{0,200})"  # one resource's change in a plan (Terraform, OpenTofu)
)
_REASON = re.compile(r"\s*# (\(.{1,200}\))$")  # why a plan changes a resource, on the line after its header
_WHOLE_LINE = frozenset({"i", "j", "k"})
_GROUPS = frozenset({"a", "b"})
# a name, not a mark (``[*] 3 fixable``) nor a level (``[INFO]``, ``[WARNING]``: every line of a Maven build has one)
_BRANCH = re.compile(
    r"\[(?!(?i:(?:INFO|WARN|WARNING|WARNINGS|ERROR|ERRORS|DEBUG|TRACE|FATAL|NOTICE|CRITICAL)\]))"
    r"([^\]\n]{0,59}\w[^\]\n]{0,59})\] "
)
# a compiler's diagnostic, where one starts: a severity-led message (``error[E0308]: mismatched types``, its place on
# a ``--> file:line:col`` line after it), or a place-led one (``src/a.c:12:5: error: ...``, ``a.ts(3,7): error ...``,
# a linter's ``a.rb:4:1: C: ...`` or ``a.py:3:1: E302 ...``)
_DIAGNOSTIC = re.compile(
    r"\s{0,4}(?P<sev>(?:error|warning)(?:\[[\w-]{1,40}\])?): (?P<msg>\S.*)"
    r"|(?P<place>\S+?(?::\d+(?::\d+)?|\(\d+(?:,\d+)?\))):? "
    r"(?:(?:fatal )?(?:error|warning|note)\b|[A-Z]{1,3}\d{0,5}:(?:\s|$)|[A-Z]{1,3}\d{1,5} )"
)
# a linter's place-led line whose severity is a letter (``a.rb:4:1: W: ...``, ``a.py:3:1: E302 ...``): E and F
# (error, fatal) count as errors, W as warnings; conventions and refactorings (C, R) are not highlighted
_CODED = re.compile(r"\S+?:\d+(?::\d+)?: ([EFW])(?:\d{1,5}\b|:)")
_MESSAGE = re.compile(r" {4}(\S.*)")  # a commit message's line, as ``git log`` indents it


def _subject(lines: list[str], number: int) -> str:
    """The subject of the commit whose ``commit <hash>`` header is line ``number``: its message's first line, after
    the header's ``Author:``/``Date:`` lines (""  when none follows soon)."""
    for line in lines[number : number + 12]:
        if line.startswith("commit "):
            return ""
        m = _MESSAGE.match(line[:400])
        if m:
            return m.group(1)
    return ""


_CARET = re.compile(r"\s*[\^~]+[\s^~-]*$")
_GUTTER = re.compile(r"\s*\d+ +[|>] ")
_PLACE = re.compile(r"\s*--> (\S+:\d+(?::\d+)?)")
_CATEGORY = re.compile(r"\[-?[A-Za-z][\w.:/=+-]{1,60}\]$")
# A severity word, not part of a path or file name (``util/error.lo``, ``Exception.cpp``); exception and warning
# class names (``ValueError``, ``DeprecationWarning``) count too, and a test runner's verdict in capitals (``--- FAIL:
# TestX``, ``FAIL pkg``) or TAP's ``not ok 3``.
_SEVERITY = re.compile(
    r"(?<![\w./-])(?:(?P<error>error|errors|fatal|failed|failure|failures|exception|panic|panicked|traceback|"
    r"critical|E\d{4}|(?-i:[A-Z]\w*(?:Error|Exception))|(?-i:FAIL|not ok(?= \d)))"
    r"|(?P<warning>warn|warning|warnings|deprecation|"
    r"(?-i:[A-Z]\w*Warning)))(?![\w/-]|\.\w)",
    re.IGNORECASE,
)
_ZERO = re.compile(r"\b(?:0|no) (?:errors?|failures?|warnings?)\b|\berror[s]?[=:] ?0\b", re.IGNORECASE)
_TIMESTAMP = re.compile(r"^\S*\d{2}:\d{2}:\d{2}[\d.,:Z+-]*\]?\s*")
# a timestamp a line starts with (ISO date and time, or a time of day), left out of a highlight: its line places it
_STAMP = re.compile(r"^\[?(?:\d{4}-\d{2}-\d{2}[T ])?\d{2}:\d{2}:\d{2}[\d.,:Z+-]{0,16}\]?\s+")
# numbers a repeated line varies in: decimal, hexadecimal (an object's address ``0x7f5966fb6e90``), long hashes
_DIGITS = re.compile(r"0x[0-9a-fA-F]+|(?<![\w-])[0-9a-f]{12,}(?![\w-])|\d+")
# a stack trace's frame (Rust's ``27: 0x55e8 - core::panic::...``, ``at src/lib.rs:3:9``, Python's ``File "x",
# line 3``, Java's and Node's ``at x.y(...)``, Go's ``/src/x.go:13 +0x20``): where an error passed, not an error
_FRAME = re.compile(
    r'\s*(?:\d{1,4}: +(?:0x[0-9a-f]+ - \S|[\w<][\w<>\[\]{}, ]*::\S)|File "[^"\n]{1,300}", line \d+'
    r"|at (?:[\w.$<>/-]+\(|\S+ \(\S+:\d+|\S*[/.]\S*:\d+))"
    r"|\s*\S+\.go:\d+(?: \+0x[0-9a-f]+)?$"
)
# terminal colours and styles (CSI sequences: ``ESC [ 31;1 m``), as a CI runner keeps them
ANSI = re.compile(r"\x1b\[[0-?]{0,32}[ -/]{0,8}[@-~]")
_CONTEXT_AFTER = 1


def outline(text: str) -> Outline:
    """Steps (or blocks) and the error and warning lines of ``text``; a log in colour is read (and shown) without
    its terminal codes, line for line."""
    body = ANSI.sub("", text) if "\x1b[" in text else None
    lines = (body if body is not None else text).splitlines()
    entries: list[Entry] = []
    seen: dict[str, int] = {}  # a repeated line's shape -> its index in found
    found: list[list[object]] = []  # [severity rank, line number, text, count]
    branches: set[str] = set()  # parallel branches interleave: each is an entry where it first speaks
    branch = ""
    grouped = False  # whether a CI group (``##[group]``, ``::group::``) opened yet
    for number, line in enumerate(lines, 1):
        head = line[:400]
        rest = _TIMESTAMP.sub("", head, count=1)
        prefix = _BRANCH.match(rest)
        branch = prefix.group(1) if prefix else ""
        if branch and branch not in branches and len(branches) < 100 and len(entries) < MAX_ENTRIES:
            branches.add(branch)
            entries.append(Entry(title_of(f"[{branch}]"), 1, number))
        step = _STEP.match(rest[prefix.end() :] if prefix else rest)
        if step and len(entries) < MAX_ENTRIES:
            # A group or task is titled by its name; a command or banner by its line, marker included.
            name = step.group(0).strip(" =") if step.lastgroup in _WHOLE_LINE else step.group(step.lastgroup or 0)
            if step.lastgroup == "m":
                name = f"{name[:12]} {_subject(lines, number)}".rstrip()
            reason = _REASON.match(lines[number][:400]) if step.lastgroup == "p" and number < len(lines) else None
            if reason:
                name += f" {reason.group(1)}"
            grouped = grouped or step.lastgroup in _GROUPS
            # a CI log's groups are its steps: the banners and tasks its tools print nest under them
            inner = grouped and step.lastgroup not in _GROUPS
            entries.append(Entry(title_of(name), 1 + bool(branch) + inner, number))
        if _GUTTER.match(head) or _FRAME.match(head) or (number < len(lines) and _CARET.match(lines[number][:400])):
            continue  # source a compiler or linter quotes (its gutter, or a caret under it): not the tool's words
        severity = _SEVERITY.search(head)
        coded = _CODED.match(rest) if severity is None else None
        if (severity is None and coded is None) or _ZERO.search(head):
            continue
        rank = 0 if (severity.group("error") if severity else coded and coded.group(1) in "EF") else 1
        category = _CATEGORY.search(head.rstrip())
        shape = category.group(0) if category else _DIGITS.sub("#", rest)
        if shape in seen:
            found[seen[shape]][3] = int(str(found[seen[shape]][3])) + 1
            continue
        if len(found) >= MAX_HIGHLIGHTS * 4:
            continue
        context = [
            clip(_STAMP.sub("", lines[n], count=1), 160)
            for n in range(number, min(len(lines), number + _CONTEXT_AFTER))
        ]
        shown = clip(_STAMP.sub("", line, count=1))  # the line number places it: its timestamp is left out
        if category and category.group(0) not in shown:  # the category a long line ends with stays in sight
            shown = f"{clip(line, 200)} {category.group(0)}"
        shown += "".join(f"\n    {c}" for c in context if c.strip())
        seen[shape] = len(found)
        found.append([rank, number, shown, 1])
    structured = bool(entries)
    if not entries:
        entries = _diagnostics(lines)  # a compiler's output: one entry a diagnostic (a section reads it whole)
        structured = bool(entries)
    if not entries:
        entries = prose.blocks(lines)
    found.sort(key=lambda f: (f[0], f[1]))
    highlights = tuple(f"L{n}{f' (x{c:,})' if int(str(c)) > 1 else ''} {t}" for _, n, t, c in found[:MAX_HIGHLIGHTS])
    errors = sum(1 for f in found if f[0] == 0)
    summary = f"{errors:,} distinct error lines, {len(found) - errors:,} distinct warning lines"
    closing = _closing(lines)
    if closing:
        summary += f"; it ends: {closing}"
    return Outline(
        "log",
        tuple(entries),
        highlights=highlights,
        highlights_label="errors and warnings",
        summary=summary,
        body=body,
        notes=("terminal colour codes dropped",) if body is not None else (),
        structured=structured,
    )


def _diagnostics(lines: list[str]) -> list[Entry]:
    """One entry per diagnostic of a compiler's output (errors before warnings is the highlights' job: entries keep
    the text's order), titled by its severity, message and place; none unless there are at least two."""
    found: list[Entry] = []
    for number, line in enumerate(lines, 1):
        if len(found) >= MAX_ENTRIES:
            break
        m = _DIAGNOSTIC.match(line[:400])
        if m is None:
            continue
        if m.group("sev"):
            following = lines[number] if number < len(lines) else ""
            place = _PLACE.match(following[:400])
            title = f"{m.group('sev')}: {m.group('msg')}" + (f" ({place.group(1)})" if place else "")
        else:
            title = line.strip()  # the place first, as the tool wrote it
        found.append(Entry(title_of(title), 1, number))
    return found if len(found) >= 2 else []


_COUNTED = re.compile(r"(?<![\w.:/=-])\d[\d,.]*%? [A-Za-z]")  # a count of something (``262 offenses``), not a version


_CLOSING_LINES = 5
# a diagnostic, not a result: a place (``a.c:3:5``, ``a.cs(12,5)``, ``A.java:[1]``) or a compiler's note or help
_DIAGNOSED = re.compile(r"\S(?::\d+|\(\d+(?:,\d+)?\)|:\[\d+)|^(?:=\s*)?(?:note|help)(?:\[[\w-]*\])?:")


def _closing(lines: list[str]) -> str:
    """The result a log ends with (``55 files inspected, 262 offenses``, ``3 failed, 61 passed in 0.2s``, ``BUILD
    FAILURE``): its last non-blank line when it counts something or has a severity word, else the last of the 4
    lines before it that is no diagnostic (no place, no note) and has a severity word or counts something with a
    blank line after it (a tool may print its elapsed time or a note after its result: MSBuild's ``11 Error(s)``
    then ``Time Elapsed 00:00:18.87``, Terraform's ``Plan: 4 to add, ...`` then a note); else ""."""
    seen = 0
    after = ""  # the line after the one looked at
    for line in reversed(lines[-50:]):
        shown = _STAMP.sub("", line.strip(), count=1).strip(" =-*#")
        apart = not seen or not after.strip()
        after = line
        if shown:
            counted = _COUNTED.search(shown[:200]) and apart
            if (counted or _SEVERITY.search(shown[:200])) and not (seen and _DIAGNOSED.search(shown[:200])):
                return clip(shown, 160)
            seen += 1
            if seen >= _CLOSING_LINES:
                return ""
    return ""

"""LaTeX sources: the sectioning commands (``\\part`` ... ``\\subparagraph``, starred or not, with their titles) as
the outline, and the abstract, the appendix and the bibliography as parts of their own; comments and ``verbatim``-like
environments skipped. Read line by line (linear); no TeX is run."""

from __future__ import annotations

import re

from hostshape.documents.model import MAX_ENTRIES, Entry, Outline, kept, title_of

_LEVELS = {
    "part": 1,
    "chapter": 2,
    "section": 3,
    "subsection": 4,
    "subsubsection": 5,
    "paragraph": 6,
    "subparagraph": 7,
}
_SECTIONING = re.compile(
    r"[ \t]*\\(part|chapter|section|subsection|subsubsection|paragraph|subparagraph)\*?"
    r"[ \t]*(?:\[[^\]\n]{0,300}\])?[ \t]*\{(.*)"
)
_VERBATIM = re.compile(r"[ \t]*\\begin\{(verbatim|Verbatim|lstlisting|minted|comment|filecontents)\*?\}")
_OWN_PARTS = re.compile(r"[ \t]*\\(?:begin\{(abstract)\}|(appendix)\b|(bibliography)\{|begin\{(thebibliography)\})")
_TITLE = re.compile(r"\\title(?:\[[^\]\n]*\])?\{([^{}\n]{1,300})\}")
#: what marks a LaTeX source: its preamble and its sectioning commands
_MARKS = re.compile(r"^[ \t]*\\(?:documentclass|usepackage|begin\{document\}|(?:sub)*section\*?\{|chapter\*?\{)", re.M)


def looks_like_latex(sample: str) -> bool:
    """At least three lines of a preamble or sectioning commands (``\\documentclass``, ``\\section{``...)."""
    return len(_MARKS.findall(sample)) >= 3


def outline(text: str) -> Outline | None:
    """The sections of ``text``, or None when it has none."""
    entries: list[Entry] = []
    block = ""
    for number, line in enumerate(text.split("\n"), 1):
        line = line[:2000]
        if block:
            if f"\\end{{{block}" in line:
                block = ""
            continue
        code = _uncommented(line)
        verbatim = _VERBATIM.match(code)
        if verbatim:
            block = verbatim.group(1)
            continue
        found = _SECTIONING.match(code)
        if found:
            entries.append(Entry(_title(found.group(2)) or "(untitled)", _LEVELS[found.group(1)], number))
        else:
            own = _OWN_PARTS.match(code)
            if own:
                name = next(group for group in own.groups() if group)
                entries.append(Entry(name.replace("thebibliography", "bibliography"), 3, number))
        if len(entries) > MAX_ENTRIES:
            break
    if not entries:
        return None
    shown, notes = kept(entries, (), "sections")
    title = _TITLE.search(text[:20_000])
    return Outline("latex", shown, summary=title_of(title.group(1)) if title else "", notes=notes)


def _uncommented(line: str) -> str:
    """The line without its comment (a ``%`` not escaped as ``\\%``)."""
    at = re.search(r"(?<!\\)%", line)
    return line[: at.start()] if at else line


def _title(rest: str) -> str:
    """The braced argument that starts ``rest`` (nested braces kept; cut at the line's end), without markup."""
    depth, out = 1, []
    for char in rest:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                break
        out.append(char)
    text = re.sub(r"\\[A-Za-z]+\*?(?:\[[^\]]*\])?", "", "".join(out)).replace("{", "").replace("}", "")
    return title_of(text.replace("~", " "))

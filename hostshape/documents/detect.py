"""Which kind of document a text is, from its content alone (never a file or tool name): the first 64 KB are read
for the marks each kind leaves (tags, diff headers, aria nodes, timestamps and severities, keys, headings, code)."""

from __future__ import annotations

import re

from hostshape.documents.aria import LINE as ARIA_LINE
from hostshape.documents.asciidoc import looks_like_asciidoc
from hostshape.documents.code import definition_signs, looks_like_code
from hostshape.documents.commented import looks_commented, top_blocks
from hostshape.documents.config import looks_like_config
from hostshape.documents.latex import looks_like_latex
from hostshape.documents.manpage import looks_like_roff, looks_rendered
from hostshape.documents.notebook import looks_like_notebook
from hostshape.documents.org import looks_like_org
from hostshape.documents.rst import looks_like_rst
from hostshape.documents.sql import looks_like_sql

SAMPLE_CHARS = 65_536
_CODE_KEYS = 0.5  # YAML is mostly key lines; code that looks like YAML has fewer
_SAMPLE_LINES = 2_000
_FIRST_ELEMENT = re.compile(r"<[a-z][\w:.-]*[\s>/]")
_HTML_TAG = re.compile(r"<(?:html|head|body|div|p|span|a|script|meta|link|table|ul|h[1-6]|article|section|main)[\s>/]")
_DIFF = re.compile(r"^diff --git |^--- \S.*\n\+\+\+ \S.*\n@@ -\d", re.M)
_LOG_LINE = re.compile(
    r"\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}"
    r"|\[?\d{2}:\d{2}:\d{2}"
    r"|\[?(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|NOTICE|CRITICAL)\]?[\s:]"
    r"|##\[|::(?:group|endgroup|error|warning|notice)\b|> Task :|Step \d+/\d+ :|#\d+ \[|\s*at [\w.$]+\("
    r"|\[[^\]\n]{1,60}\] "  # a parallel branch's prefix (Jenkins), a logger's name
    # build tools' own words: compilers, make, configure, automake's silent rules, package managers
    r"|(?:Compiling|Precompiling|Linking|Building|Creating|Installing|Downloading|Running|Making|Generating|"
    r"Scanning|Fetching|Copying|Packaging|Checking|Processing|Finished|Skipping|checking (?:for|if|whether)) "
    r"|Target [\w.-]{1,100}:$|Project \"[^\"\n]{1,300}\" |Build (?:started|succeeded|FAILED)\b"  # MSBuild's
    r"|g?make(?:\[\d+\])?: |={3,} |\s*(?:CC|CXX|LD|AR|CCLD|CXXLD)\s+\S"
    # test runners' result lines: pytest (-v, and its dots), go test, cargo test, their failure banners
    r"|\S+::\S.* (?:PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b|\S+\.py [.FEsxX]+\s*(?:\[\s*\d+%\])?$"
    r"|\s*--- (?:PASS|FAIL|SKIP): |(?:ok|FAIL|PASS)\s+\S+\s+[\d.]+s\b|test \S+ \.\.\. (?:ok|FAILED|ignored)\b"
    r"|_{3,} \S.{0,100} _{3,}$|(?:not )?ok \d+\b"  # ... and TAP's ``ok 3 - name`` / ``not ok 4 - name``
    # compilers' diagnostics: a severity-led message (rustc, cargo), its ``--> file:line`` and gutter lines
    # (``  |``, ``12 | code``, ``  = note:``), a ``file:line[:col]: error`` or ``file(line,col): error`` line (or a
    # linter's one-letter or coded severity: ``a.rb:4:1: C: ...``, ``a.py:3:1: E302 ...``), a caret under the place,
    # a build tool's ``file:[line,col]`` message, and artefact transfers (``Downloading: url``)
    r"|\s*(?:error|warning|note|help)(?:\[[\w-]{1,40}\])?: \S|\s*--> \S+:\d+|(?:\s+|\d+ +)\|(?:\s|$)"
    r"|\s*= (?:note|help): "
    r"|\S+?(?::\d+(?::\d+)?:|\(\d+(?:,\d+)?\):) "
    r"(?:(?:fatal )?(?:error|warning|note)\b|[A-Z]{1,3}\d{0,5}:(?:\s|$)|[A-Z]{1,3}\d{1,5} )"
    r"|\S+:\[\d+(?:,\d+)?\] |\s*\^+~*\s*$"
    r"|(?:Downloading|Downloaded|Uploading|Uploaded): \S"
    # a history (``git log``, ``--stat``): commit headers, their fields, the files each changed and their count
    r"|commit [0-9a-f]{7,40}\b|(?:Author|AuthorDate|Commit|CommitDate|Date|Merge): +\S"
    r"|\s\S.{0,200}? +\| +(?:\d+(?: [+-]+)?|Bin )|\s\d+ files? changed"
    # a stack trace's frames: Python's ``File "x.py", line 3``, Rust's numbered ``12: crate::module::function``
    # (and ``0x55e8 - symbol``), its ``at src/lib.rs:33:16``, Go's ``/src/x.go:13 +0x20d`` and ``goroutine 1 [...]:``
    r'|\s*File "[^"\n]{1,300}", line \d+|\s*\d{1,4}: +(?:0x[0-9a-f]+ - \S|[\w<][\w<>\[\]{}, ]*::\S)'
    r"|\s+at \S+:\d+(?::\d+)?$|\s*\S+\.go:\d+(?: \+0x[0-9a-f]+)?$|goroutine \d+ \[[\w ,]{1,60}\]:$"
    # an infrastructure plan (Terraform, OpenTofu): a resource's state read or change (``x: Refreshing state...``,
    # ``x: Creation complete``), its ``# x will be created`` header, its body's marked attributes (``~ a = 1 -> 2``)
    r"|\S+: (?:Refreshing state|Reading|Creating|Modifying|Destroying|Still \w+)\.\.\.|\S+: \w+ complete after "
    r"|\s*# \S+ (?:will be|must be) |\s*(?:[+~-]|-/\+|\+/-|<=) (?:\"?[\w.-]+\"? += |(?:resource|data) \"\w)"
)
_YAML_KEY = re.compile(r"\s*(?:- )?[\w\"'./-][\w \"'./-]{0,80}:(?:\s|$)")
_YAML_OTHER = re.compile(r"\s*- \S|---\s*$|\.\.\.\s*$|\s+\S")
_ATX = re.compile(r"^ {0,3}#{1,6} \S", re.M)
_FENCE_OR_LINK = re.compile(r"^ {0,3}(?:```|~~~)|\]\([^()\s\]]{1,500}\)", re.M)
_MARKDOWN = re.compile(r"^ {0,3}(?:```|~~~)|\]\([^()\s\]]{1,500}\)|^ {0,3}(?:[-*+]|\d+\.) \S|^ {0,3}>|\*\*\S", re.M)


def kind_of(text: str) -> str:
    """One of ``notebook``, ``html``, ``xml``, ``diff``, ``aria``, ``manpage``, ``org``, ``asciidoc``, ``latex``,
    ``config``, ``sql``, ``log``, ``yaml``, ``rst``, ``commented``, ``markdown``, ``code``, ``prose``."""
    if looks_like_notebook(text):
        return "notebook"
    sample = text[:SAMPLE_CHARS].lstrip("\ufeff \t\r\n")
    if sample.startswith("<") and _mostly_markup(sample):
        head = sample[:4000].lower()
        first = _FIRST_ELEMENT.search(head)
        if head.startswith("<!doctype html") or "<html" in head or "<body" in head:
            return "html"
        if head.startswith("<?xml"):
            return "xml"
        return "html" if first is not None and _HTML_TAG.match(first.group(0)) else "xml"
    if _DIFF.search(sample):
        return "diff"
    lines = [line for line in sample.splitlines()[:_SAMPLE_LINES] if line.strip()]
    if not lines:
        return "prose"
    share = _shares(lines)
    if share["aria"] >= 0.6 and "[ref=" in sample:
        return "aria"
    own = _own_syntax(sample, lines, share["log"] >= 0.3)
    if own is not None:
        return own
    if share["log"] >= 0.3:
        return "log"
    unfenced = _outside_fences(sample)
    source = looks_like_code(unfenced)
    signs = definition_signs(unfenced, source) if source is not None else 0
    # Indented code reads as YAML by its lines (``if x:`` is a key, a body line a continuation): code with its own
    # definitions and few key lines is code.
    if share["keys"] >= 0.3 and share["yaml"] >= 0.85 and not (signs >= 3 and share["keys"] < _CODE_KEYS):
        # a mapping's keys are unique: lines that repeat one unindented "key" are messages (``Connection error:
        # ...`` a hundred times over), a log
        return "log" if _repeated_top_key(lines) else "yaml"
    atx = len(_ATX.findall(sample))
    if atx == 0 and looks_like_rst(sample):
        return "rst"
    structural = _code_or_commented(signs, atx, unfenced.splitlines()[:_SAMPLE_LINES])
    if structural is not None:
        return structural
    marks = len(_MARKDOWN.findall(sample))
    language = looks_like_code(sample)
    if (marks >= 3 and (language is None or atx + len(_FENCE_OR_LINK.findall(sample)) >= 3)) or (
        atx >= 1 and language is None
    ):
        return "markdown"
    if language is not None:
        return "code"
    return "markdown" if atx else "prose"


def _code_or_commented(signs: int, atx: int, lines: list[str]) -> str | None:
    """``code`` when the sample's definitions outnumber its lines like headings (code's comments), ``commented``
    when those lines come in runs (comment blocks: a config file, Terraform) or the text is top-level blocks
    (``lines``: the sample's lines outside fences, blank ones included: a run is of adjacent lines)."""
    if signs >= max(atx, 3):
        return "code"  # code outside any fence, its definitions outnumbering lines like headings (its comments)
    if (atx and looks_commented(lines)) or top_blocks(lines):
        return "commented"
    return None


def _own_syntax(sample: str, lines: list[str], logged: bool) -> str | None:
    """A kind whose own syntax marks its parts, when the sample shows it: a manual page's macros, Org's headlines
    and keywords, AsciiDoc's titles and attributes, LaTeX's preamble and sectioning commands, a config file's
    tables and keys, SQL statements. Marks inside Markdown fences are examples, not the text's own syntax; a log
    (``logged``) that prints SQL statements or config lines stays a log."""
    if looks_like_roff(lines) or looks_rendered(lines):
        return "manpage"
    if "```" in sample or "~~~" in sample:
        sample = _outside_fences(sample)
    if looks_like_org(sample):
        return "org"
    if looks_like_asciidoc(sample):
        return "asciidoc"
    if looks_like_latex(sample):
        return "latex"
    if logged:
        return None
    if looks_like_config(sample):
        return "config"
    if looks_like_sql(sample):
        return "sql"
    return None


_TOP_KEY = re.compile(r"(?!- )([\w\"'./-][\w \"'./-]{0,80}):(?:\s|$)")


def _repeated_top_key(lines: list[str]) -> bool:
    """Whether one unindented key repeats within a YAML document (between ``---`` lines) at least 3 times and on a
    third of its unindented key lines: YAML forbids a mapping's key twice, a log of ``label: message`` lines does
    not."""
    counts: dict[str, int] = {}
    total = 0
    for line in [*lines, "---"]:
        if line.startswith("---"):
            if total and max(counts.values()) >= max(3, total / 3):
                return True
            counts, total = {}, 0
            continue
        m = _TOP_KEY.match(line[:200])
        if m:
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
            total += 1
    return False


def _outside_fences(sample: str) -> str:
    """``sample`` without its fenced blocks (a Markdown page's code examples), line by line."""
    kept: list[str] = []
    fence = ""
    for line in sample.splitlines():
        opener = line.lstrip(" ")[:3]
        if opener in ("```", "~~~") and len(line) - len(line.lstrip(" ")) <= 3:
            fence = "" if fence == opener else fence or opener
            continue
        if not fence:
            kept.append(line)
    return "\n".join(kept)


def _mostly_markup(sample: str) -> bool:
    """A text that starts with a tag is markup unless most of its lines are not tags (Markdown that opens with an
    anchor or a badge, say)."""
    lines = [line.lstrip() for line in sample.splitlines()[:_SAMPLE_LINES] if line.strip()]
    if len(lines) < 10:
        return True
    tagged = sum(1 for line in lines if line.startswith("<"))
    return tagged / len(lines) >= 0.3 or not _ATX.search(sample)


def _shares(lines: list[str]) -> dict[str, float]:
    total = len(lines)
    aria = sum(1 for line in lines if ARIA_LINE.match(line[:300]))
    # a log line may be indented (a build tool nests its targets' output; a console adds a margin)
    log = sum(1 for line in lines if _LOG_LINE.match(line[:200].lstrip()))
    comments = sum(1 for line in lines if line.lstrip().startswith("#"))
    keys = sum(1 for line in lines if _YAML_KEY.match(line[:200]))
    other = sum(1 for line in lines if not _YAML_KEY.match(line[:200]) and _YAML_OTHER.match(line[:200]))
    data = max(1, total - comments)
    return {"aria": aria / total, "log": log / total, "keys": keys / data, "yaml": (keys + other) / data}

"""Source code: its definitions (functions, classes, structs, traits, modules...), nested by indentation, each
titled by its signature line; a definition's part starts at the comments, doc comments, attributes and decorators
right above it (what documents it is read with it).

The language is told from the content (the words and forms each language's definitions and imports use); Pygments'
lexer for it marks definitions (``Name.Function``, ``Name.Class``, ``Name.Namespace`` on a line that starts with a
keyword). Without Pygments, for languages whose lexer marks none (JavaScript, Go), and for sources over
``MAX_LEXED_CHARS``, definition lines are found by one anchored pattern over the keywords of every language."""

from __future__ import annotations

import re
from collections.abc import Callable

from hostshape.documents.model import MAX_ENTRIES, Entry, Outline, kept, title_of

MAX_LEXED_CHARS = 1_000_000
# Each sign stays within one line (``[ \t]``, never ``\s``, ``[^;\n]``, never ``[^;]``): a pattern that can run on
# past a line end is tried again from every line start, quadratic in the sample (a list of numbers, blank lines).
_SIGNS: dict[str, re.Pattern[str]] = {
    "python": re.compile(r"^(?:async )?def \w+\(.*:[ \t]*$|^class \w+.*:[ \t]*$|^(?:from \S+ )?import \w", re.M),
    "rust": re.compile(r"^[ \t]*(?:pub(?:\([^)\n]*\))? )?(?:fn|impl|trait|mod|use \w+::)\b|\blet mut\b", re.M),
    "go": re.compile(r"^package \w+$|^func [\w(]|^type \w+ (?:struct|interface)", re.M),
    "java": re.compile(r"^[ \t]*(?:public|private|protected)(?: static)? [\w<>\[\], ]+[ (]|^import [\w.]+;", re.M),
    "javascript": re.compile(
        r"^[ \t]*(?:export )?(?:async )?function\b|=>|^[ \t]*(?:const|let|var) \w+ =|^import .* from ", re.M
    ),
    "c": re.compile(r"^#include[ \t]*[<\"]|^\w[\w \t\*]+\([^;\n`]*\)[ \t]*\{?[ \t]*$", re.M),
    "bash": re.compile(r"^#!/.*sh\b|^[ \t]*(?:if \[|fi$|then$|done$|esac$|set -[euxo]|export \w+=)", re.M),
    "ruby": re.compile(r"^[ \t]*def \w+[^:\n]*$|^[ \t]*end$|^require ['\"]", re.M),
}
_KEYWORD_DEFINITION = re.compile(
    r"(?P<indent>[ \t]*)(?:(?:pub(?:\([^)\n]{0,40}\))?|export|default|async|static|public|private|protected|"
    r"internal|abstract|final|sealed|override|open|unsafe|extern|inline|virtual|const|data|case)\s+){0,6}"
    # a whole keyword (``default:`` in a switch starts with ``def``, ``classes = ...`` with ``class``)
    r"(?:(?:def|class|fn|func|function|struct|enum|trait|impl|interface|type|module|mod|object|namespace|record|"
    r"protocol|extension)\b|macro_rules!)\s*[\w(<*&]"
    r"|(?P<assigned>[ \t]*)(?:(?:export\s+)?(?:const|let|var)\s+)?[\w.$]+\s*[=:]\s*(?:async\s+)?"
    r"(?:function\b|\([^()\n]{0,200}\)\s*=>)"
)
#: a method in a JavaScript or TypeScript class body: indented, its modifiers, name, parameters (no nested
#: parentheses: a call with a callback is not one), return type, and the brace that opens its body
_METHOD = re.compile(
    r"[ \t]+(?:(?:public|private|protected|static|async|readonly|override|abstract|get|set)\s+){0,4}"
    r"(?!(?:if|for|while|switch|catch|with|return|function|else|do|try|new|await|typeof)\b)"
    r"[A-Za-z_$#][\w$]*\s*(?:<[^<>\n]{0,80}>)?\([^()\n]{0,300}\)\s*(?::\s*[^{};=\n]{1,120})?\{[ \t]*$"
)
_METHOD_NAME = re.compile(
    r"(?:(?:public|private|protected|static|async|readonly|override|abstract|get|set)\s+)*(?P<name>[A-Za-z_$#][\w$]*)"
    r"\s*(?:<[^<>]*>)?\("
)
#: the name a definition line defines (a Go method by its receiver's type: ``Command.Execute``)
_DEFINED_NAME = re.compile(
    r"\b(?:def|class|fn|func|function|struct|enum|union|trait|interface|type|module|mod|object|namespace|record|"
    r"protocol|extension)\s+(?:\(\s*(?:\w+\s+)?[*&]?\s*(?P<receiver>\w+)[^()]*\)\s*)?(?P<name>[A-Za-z_$][\w$]*)"
    r"|^(?:export\s+)?(?:const|let|var)\s+(?P<assigned>[\w$]+)\s*="
)
#: a line that documents or decorates the definition below it (the lexer-free reading of comments and attributes)
_LEADING = re.compile(r"[ \t]*(?://|/\*|\*|#|@|--|;;)")
#: how far above its definition a part may start (a licence header glued to the first definition stays out)
MAX_LEADING_LINES = 80
#: on a definition line, the name defined comes before any of these (``let x = f()``, ``mut arg: Type,`` are not
#: definitions even when a lexer marks a name after them)
_BEFORE_NAME = frozenset(["(", "=", ":", ".", ";", "->", "=>", "{"])


def looks_like_code(sample: str) -> str | None:
    """The language ``sample`` most looks written in, or None when it does not look like code."""
    lines = max(1, sample.count("\n") + 1)
    best, hits = None, 0
    for language, sign in _SIGNS.items():
        found = len(sign.findall(sample))
        if found > hits:
            best, hits = language, found
    structural = sum(1 for line in sample.splitlines() if line.rstrip().endswith(("{", "}", ";", ":", ")")))
    return best if hits >= 3 and (hits + structural) / lines >= 0.15 else None


def definition_signs(sample: str, language: str) -> int:
    """How many of ``language``'s marks (definitions and imports at their own line's start) ``sample`` holds."""
    sign = _SIGNS.get(language)
    return len(sign.findall(sample)) if sign is not None else 0


def outline(text: str) -> Outline | None:
    """The definitions of ``text``, or None when it has none."""
    language = looks_like_code(text[:65536]) or "code"
    entries: list[Entry] = []
    notes: tuple[str, ...] = ()
    if len(text) <= MAX_LEXED_CHARS:
        try:
            entries = _lexed(text, language)
        except ImportError:
            entries = []
    elif language != "code":
        notes = (f"{len(text):,} characters: definitions found by their keywords, not lexed",)
    if not entries:
        entries = _keyword_lines(text, language)
    if not entries:
        return None
    kind = f"{language} source" if language != "code" else "source code"
    shown, kept_notes = kept(entries, notes, "definitions")
    return Outline(kind, shown, notes=kept_notes)


def _lexed(text: str, language: str) -> list[Entry]:
    from pygments.lexers import get_lexer_by_name
    from pygments.token import Keyword, Name, Text, Whitespace
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return []
    starts = _line_starts(text)
    defined: set[int] = set()
    first_on_line: dict[int, object] = {}
    closed: set[int] = set()  # lines past the point where a definition's name could be
    leading: set[int] = set()  # lines that are comments, doc comments, attributes or decorators
    names: dict[int, str] = {}  # line -> the name the lexer marks defined on it
    line = 0
    for index, kind, value in lexer.get_tokens_unprocessed(text):
        while line + 1 < len(starts) and starts[line + 1] <= index:
            line += 1
        if kind in Whitespace or (kind in Text and not value.strip()):
            continue
        first_on_line.setdefault(line, kind)
        first = first_on_line[line]
        if _documents(kind, value):
            if _documents(first, value):
                leading.add(line)
            leading.update(range(line + 1, line + 1 + value.rstrip("\n").count("\n")))  # a block comment's lines
            continue
        if (
            (kind in Name.Function or kind in Name.Class)
            and kind not in Name.Function.Magic
            and first in Keyword
            and first not in Keyword.Namespace
            and line not in closed
        ):
            defined.add(line)
            names.setdefault(line, value)
        if value.strip() in _BEFORE_NAME:
            closed.add(line)
    # A keyword's definition line counts when the lexer sees it start with a keyword (not inside a comment or a
    # string): this adds what a lexer leaves unmarked (Rust's impl and trait, JavaScript's and Go's functions).
    defined.update(n for n in _keyword_numbers(text, starts) if first_on_line.get(n) in Keyword)
    if language == "javascript":  # class methods have no keyword; the lexer says the line is code, not a string
        defined.update(n for n in _method_numbers(text, starts) if _is_code(first_on_line.get(n), Keyword, Name))
    return _entries(text, starts, sorted(defined), leading.__contains__, names)


def _is_code(kind: object, *kinds: object) -> bool:
    """The token kind ``kind`` is one of ``kinds`` (or a subkind): code, not a comment or a string."""
    return kind is not None and any(kind in parent for parent in kinds)  # type: ignore[operator]


def _documents(kind: object, value: str) -> bool:
    """A comment, an attribute or a decorator; a doc string only in comment form (Rust's ``///``: a Python
    docstring documents what is above it, not below)."""
    from pygments.token import Comment, Name, String

    if kind in String.Doc:
        return value.lstrip().startswith("/")
    return kind in Comment or kind in Name.Decorator


def _keyword_lines(text: str, language: str) -> list[Entry]:
    starts = _line_starts(text)

    def leading(number: int) -> bool:
        return bool(_LEADING.match(text, starts[number], starts[number] + 200))

    numbers = _keyword_numbers(text, starts)
    if language == "javascript":
        numbers = sorted({*numbers, *_method_numbers(text, starts)})[: MAX_ENTRIES + 1]
    return _entries(text, starts, numbers, leading)


def _method_numbers(text: str, starts: list[int]) -> list[int]:
    """The (0-based) lines that open a JavaScript or TypeScript class method."""
    found: list[int] = []
    for number, start in enumerate(starts):
        end = text.find("\n", start, start + 400)
        if _METHOD.match(text, start, end if end >= 0 else min(len(text), start + 400)):
            found.append(number)
            if len(found) > MAX_ENTRIES:
                break
    return found


def _keyword_numbers(text: str, starts: list[int]) -> list[int]:
    """The (0-based) lines that open a definition by a keyword of some language."""
    found: list[int] = []
    for number, start in enumerate(starts):
        end = text.find("\n", start, start + 400)
        if _KEYWORD_DEFINITION.match(text, start, end if end >= 0 else min(len(text), start + 400)):
            found.append(number)
            if len(found) > MAX_ENTRIES:
                break
    return found


def _entries(
    text: str,
    starts: list[int],
    lines: list[int],
    leading: Callable[[int], bool],
    names: dict[int, str] | None = None,
) -> list[Entry]:
    """Entries for the definition lines (0-based), nested by indentation, each starting at the ``leading`` lines
    (comments, attributes) right above it, never at or before the definition above it, and named by what it
    defines (``names``: what the lexer marked, else the keyword's name)."""
    entries: list[Entry] = []
    indents: list[int] = []
    previous = -1
    for line in lines:
        end = text.find("\n", starts[line])
        source = text[starts[line] : end if end >= 0 else len(text)][:300]
        indent = len(source) - len(source.lstrip())
        while indents and indents[-1] > indent:
            indents.pop()
        if not indents or indents[-1] < indent:
            indents.append(indent)
        signature = source.strip().rstrip("{:").strip()
        first = line
        while first - 1 > previous and line - first < MAX_LEADING_LINES and leading(first - 1):
            first -= 1
        entries.append(Entry(title_of(signature, 100), len(indents), first + 1, name=_name(signature, names, line)))
        previous = line
    return entries


def _name(signature: str, names: dict[int, str] | None, line: int) -> str:
    match = _DEFINED_NAME.search(signature[:200])
    if match is None:
        method = _METHOD_NAME.match(signature[:200])
        return title_of(method.group("name") if method else (names or {}).get(line, ""), 60)
    name = match.group("name") or match.group("assigned") or ""
    receiver = match.group("receiver")
    return title_of(f"{receiver}.{name}" if receiver else name, 60)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts

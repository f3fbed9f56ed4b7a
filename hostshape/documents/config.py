"""Configuration files in TOML or INI form: their tables (``[tool.ruff]``, ``[[bin]]``, ``[section]``), each with
its keys (``name = value``) as entries below it, named by the key. A table ``[a.b]`` sits under ``[a]`` when that
table is written before it. Read line by line (linear); multi-line values (arrays, triple-quoted strings) are
skipped over, so a key is only ever a line that starts one."""

from __future__ import annotations

import re

from hostshape.documents.model import MAX_ENTRIES, Entry, Outline, kept, title_of

# The name starts at its first non-blank and runs to the closing bracket (its blanks trimmed after): blanks on both
# sides of a lazy name made a line of 4,000 blanks after a ``[`` take seconds to refuse.
_TABLE = re.compile(r"[ \t]*(\[\[?)[ \t]*([^\[\]\n \t][^\[\]\n]{0,199})\]\]?[ \t]*(?:[#;].*)?$")
_KEY = re.compile(r"""([A-Za-z0-9_.\-"' ]{1,120}?)[ \t]*[=:](?!=)[ \t]*(.*)$""")
_KEY_LINE = re.compile(r"""^[ \t]*[A-Za-z0-9_.\-"']{1,120}[ \t]*=(?!=)""", re.M)
_TABLE_LINE = re.compile(r"^\[\[?[A-Za-z0-9_.\-\"' :/]{1,200}\]\]?[ \t]*(?:[#;].*)?$", re.M)
_OPENERS = {"[": "]", "{": "}", "(": ")"}


def looks_like_config(sample: str) -> bool:
    """At least two ``[table]`` lines flush left (an indented ``[name]`` is more often a list in code), and
    ``key = value`` lines making up much of the rest."""
    tables = len(_TABLE_LINE.findall(sample))
    if tables < 2:
        return False
    keys = len(_KEY_LINE.findall(sample))
    lines = [line for line in sample.split("\n") if line.strip() and not line.lstrip().startswith(("#", ";"))]
    return keys >= 2 and (keys + tables) >= 0.35 * len(lines)


def outline(text: str) -> Outline | None:
    """Tables and keys, or None when there are neither."""
    entries: list[Entry] = []
    tables: set[str] = set()
    level = 0  # the level of the table the keys below belong to (0: the root)
    depth = 0  # open brackets of a multi-line value
    quote = ""  # an open triple-quoted string
    array_at: int | None = None  # the entry of an array of tables that has no key yet
    for number, line in enumerate(text.split("\n"), 1):
        line = line[:4000]
        if quote:
            if line.count(quote) % 2:
                quote = ""
            continue
        if depth > 0:
            depth = max(0, depth + _balance(line))
            continue
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        table = _TABLE.match(line)
        if table:
            name = " ".join(table.group(2).split())
            parent = name.rsplit(".", 1)[0] if "." in name else ""
            level = 2 if parent and parent in tables else 1
            tables.add(name)
            shown = f"[[{name}]]" if table.group(1) == "[[" else f"[{name}]"
            entries.append(Entry(shown, level, number, name=name))
            array_at = len(entries) - 1 if table.group(1) == "[[" else None
        else:
            key = _KEY.match(stripped) if line[:1] not in " \t" or level == 0 else None
            if key and array_at is not None:  # an array of tables is told apart by its first key
                first = entries[array_at]
                entries[array_at] = Entry(
                    title_of(f"{first.title} {key.group(1).strip()} = {key.group(2)}", 100),
                    first.level,
                    first.start,
                    name=first.name,
                )
            array_at = None
            if key:
                entries.append(
                    Entry(
                        title_of(f"{key.group(1).strip()} = {key.group(2)}", 80),
                        level + 1,
                        number,
                        name=key.group(1).strip().strip("\"'"),
                    )
                )
                value = key.group(2)
                for mark in ('"""', "'''"):
                    if value.count(mark) % 2:
                        quote = mark
                depth = max(0, _balance(value)) if not quote else 0
        if len(entries) > MAX_ENTRIES:
            break
    if not entries:
        return None
    shown_entries, notes = kept(entries, (), "tables and keys")
    count = len(tables)
    return Outline("config", shown_entries, summary=f"{count:,} tables" if count else "", notes=notes)


def _balance(text: str) -> int:
    """Open brackets minus closed ones, outside quoted strings and comments."""
    balance = 0
    quote = ""
    for char in text:
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "#;" and balance <= 0:
            break
        elif char in _OPENERS:
            balance += 1
        elif char in _OPENERS.values():
            balance -= 1
    return balance

"""Unified diffs: each commit of a patch series or of ``git show``/``git log -p`` output (its subject), each file
(with its lines added and removed, renames, new, deleted and binary files) and each hunk header under it. Parsed by
unidiff; without it, or for a diff it rejects, from the ``diff --git``, ``---``/``+++`` and ``@@`` lines."""

from __future__ import annotations

import re

from hostshape.documents.model import MAX_ENTRIES, Entry, Outline, kept, title_of

_HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
_GIT = re.compile(r"diff --git a/(\S+) b/(\S+)")
# where one commit of several starts: ``git format-patch``'s ``Subject: [PATCH 2/5] ...`` (its subject may wrap onto
# an indented line), ``git show``'s and ``git log -p``'s ``commit <hash>`` (its subject the first indented line)
_SUBJECT = re.compile(r"Subject: (?:\[[^\]\n]{0,40}\] ?)?(\S.{0,300})")
_COMMIT = re.compile(r"commit ([0-9a-f]{7,40})\b")
_MESSAGE = re.compile(r" {4}(\S.{0,300})")


def outline(text: str) -> Outline | None:
    """Files (level 1) and hunks (level 2), or None when ``text`` holds no file of a diff."""
    notes: tuple[str, ...] = ()
    try:
        entries, summary = _parsed(text)
    except ImportError:
        entries, summary = _scanned(text)
    except Exception as exc:  # noqa: BLE001 - unidiff raises its own and ValueError types for odd diffs
        notes = (f"not parsed by unidiff ({type(exc).__name__}); files and hunks read from their header lines",)
        entries, summary = _scanned(text)
    if not entries:
        return None
    entries = _under_commits(text, entries)
    shown, kept_notes = kept(entries, notes, "files and hunks")
    return Outline("diff", shown, summary=summary, notes=kept_notes)


def _under_commits(text: str, entries: list[Entry]) -> list[Entry]:
    """``entries`` (files and hunks) nested under the commits ``text`` holds, each titled by its subject (with its
    ``[PATCH n/m]`` mark, or its hash's first 12 characters); ``entries`` as they are when it holds none."""
    commits: list[Entry] = []
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if len(commits) >= MAX_ENTRIES:
            break
        head = line[:400]
        subject = _SUBJECT.match(head)
        if subject:
            title = head.removeprefix("Subject: ")
            following = lines[number][:300] if number < len(lines) else ""
            if following.startswith(" ") and following.strip():
                title += " " + following.strip()  # a subject format-patch wrapped
            commits.append(Entry(title_of(title), 1, number))
            continue
        commit = _COMMIT.match(head)
        if commit:
            message = next((m.group(1) for n in lines[number : number + 12] if (m := _MESSAGE.match(n[:400]))), "")
            commits.append(Entry(title_of(f"{commit.group(1)[:12]} {message}".rstrip()), 1, number))
    if not commits:
        return entries
    nested = [Entry(e.title, e.level + 1, e.start, e.end, e.name) for e in entries]
    return sorted([*commits, *nested], key=lambda e: (e.start, e.level))


def _parsed(text: str) -> tuple[list[Entry], str]:
    from unidiff import PatchSet

    patch = PatchSet(text)
    entries: list[Entry] = []
    added = removed = 0
    for patched in patch:
        what = ""
        if patched.is_rename:
            what = f" (renamed from {patched.source_file.removeprefix('a/')})"
        elif patched.is_added_file:
            what = " (new)"
        elif patched.is_removed_file:
            what = " (deleted)"
        if patched.is_binary_file:
            what += " (binary)"
        added += patched.added
        removed += patched.removed
        first_line = patched[0][0].diff_line_no if patched and patched[0] else None
        start = patched.diff_line_no or (first_line - 1 if first_line else 1)
        entries.append(Entry(title_of(f"{patched.path} +{patched.added} -{patched.removed}{what}"), 1, start))
        for hunk in patched:
            first = hunk[0].diff_line_no if len(hunk) and hunk[0].diff_line_no else start + 1
            header = f"@@ -{hunk.source_start},{hunk.source_length} +{hunk.target_start},{hunk.target_length} @@"
            entries.append(Entry(title_of(f"{header} {hunk.section_header}".strip()), 2, max(start, first - 1)))
        if len(entries) > MAX_ENTRIES:
            break
    return entries, f"{len(patch):,} files changed, +{added:,} -{removed:,}"


def _scanned(text: str) -> tuple[list[Entry], str]:
    entries: list[Entry] = []
    previous = ""
    files = 0
    added = removed = 0
    for number, line in enumerate(text.splitlines(), 1):
        git = _GIT.match(line)
        if git:
            files += 1
            entries.append(Entry(title_of(git.group(2)), 1, number))
        elif line.startswith("+++ ") and previous.startswith("--- "):
            if not entries or entries[-1].level != 1 or entries[-1].start < number - 6:
                files += 1
                path = line[4:].split("\t")[0].removeprefix("b/")
                entries.append(Entry(title_of(path), 1, number - 1))
        elif _HUNK.match(line):
            entries.append(Entry(title_of(line), 2, number))
        elif line.startswith("+") and not line.startswith("+++ "):
            added += 1
        elif line.startswith("-") and not line.startswith("--- "):
            removed += 1
        previous = line
        if len(entries) > MAX_ENTRIES:
            break
    return entries, f"{files:,} files changed, +{added:,} -{removed:,}" if files else ""

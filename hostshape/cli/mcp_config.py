"""``hostshape proxy-config wrap|unwrap FILE``: put a host's stdio MCP servers behind ``hostshape proxy``, or undo it.

Reads the MCP configuration forms hosts use:

- ``{"mcpServers": {...}}``: Claude Desktop (``claude_desktop_config.json``), Cursor (``~/.cursor/mcp.json``,
  ``.cursor/mcp.json``), Windsurf, Claude Code (``.mcp.json``; ``~/.claude.json`` also under ``projects.<path>``);
- ``{"servers": {...}}``: VS Code ``.vscode/mcp.json`` (and ``{"mcp": {"servers": ...}}`` in ``settings.json``).

``wrap`` turns each stdio server (an entry with ``command``), or only those named with ``--server``, from
``{"command": C, "args": A, ...}`` into
``{"command": <hostshape>, "args": ["proxy", <options>, "--server", NAME, "--", C, *A], ...}``
(``--server`` lets rules of a shared policy file name the server).
Every other key (``env``, ``cwd``, ``type``, ``disabled``, ...) and every other entry stays as it was; servers
reached by URL are left alone (point a proxy at them with ``hostshape proxy --url``). ``unwrap`` restores
``command`` and ``args`` from what follows ``--``. Both write a backup next to the file first
(``FILE.before-hostshape-wrap`` / ``FILE.before-hostshape-unwrap``), write atomically, keep the file's indentation
and final newline, and change nothing when there is nothing to do. A ``wrap`` followed by ``unwrap`` gives back the
original bytes (the pre-wrap backup is used when the unwrapped content equals it). Files with comments (JSONC) are
refused with instructions for editing by hand: rewriting them would lose the comments.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Change", "main", "proxy_command", "unwrap_config", "wrap_config"]

WRAP_BACKUP = ".before-hostshape-wrap"
UNWRAP_BACKUP = ".before-hostshape-unwrap"


@dataclass
class Change:
    """What a rewrite did: the servers changed, the ones left alone (with why), and the new text."""

    text: str
    changed: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)


def proxy_command() -> list[str]:
    """The argv prefix that starts ``hostshape`` for a host, as an absolute path (hosts such as Claude Desktop start
    servers with a minimal PATH): the ``hostshape`` script beside this interpreter, else on PATH, else
    ``python -m hostshape.cli``."""
    beside = Path(sys.executable).with_name("hostshape" + (".exe" if os.name == "nt" else ""))
    if beside.exists():
        return [str(beside)]
    found = shutil.which("hostshape")
    if found:
        return [str(Path(found).resolve())]
    return [sys.executable, "-m", "hostshape.cli"]


def _servers(doc: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each (label, servers-object) of a host config document."""
    if not isinstance(doc, dict):
        return
    for key in ("mcpServers", "servers"):
        if isinstance(doc.get(key), dict):
            yield "", doc[key]
    mcp = doc.get("mcp")
    if isinstance(mcp, dict) and isinstance(mcp.get("servers"), dict):
        yield "mcp.", mcp["servers"]
    projects = doc.get("projects")
    if isinstance(projects, dict):  # Claude Code's ~/.claude.json
        for path, project in projects.items():
            if isinstance(project, dict) and isinstance(project.get("mcpServers"), dict):
                yield f"{path}:", project["mcpServers"]


def _split(entry: dict[str, Any]) -> tuple[list[str], list[str]] | None:
    """(proxy prefix, original argv) when ``entry`` runs a server behind hostshape proxy, else None."""
    command, args = entry.get("command"), entry.get("args")
    if not isinstance(command, str) or not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return None
    argv = [command, *args]
    try:
        at = argv.index("proxy")
        dash = argv.index("--", at)
    except ValueError:
        return None
    if not any("hostshape" in part for part in argv[:at]) or dash + 1 >= len(argv):
        return None
    return argv[: dash + 1], argv[dash + 1 :]


def wrap_config(
    text: str, *, servers: Sequence[str] = (), options: Sequence[str] = (), launcher: Sequence[str] | None = None
) -> Change:
    """``text`` (a host config) with its stdio servers, or the ``servers`` named, behind the proxy.

    ``options`` go to ``hostshape proxy`` before ``--`` (e.g. ``["--policy", "/path/policy.toml"]``). Raises
    ValueError for text that is not a JSON object or names a server that does not exist."""
    doc = _load(text)
    base = [*(launcher or proxy_command()), "proxy", *options]
    change = Change(text=text)
    seen: set[str] = set()
    for label, group in _servers(doc):
        for name, entry in group.items():
            seen.add(name)
            if servers and name not in servers:
                continue
            shown = label + name
            if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
                change.skipped[shown] = "not a stdio server (no command); use hostshape proxy --url for it"
                continue
            if _split(entry) is not None:
                change.skipped[shown] = "already behind hostshape proxy"
                continue
            args = entry.get("args", [])
            if not isinstance(args, list):
                change.skipped[shown] = "its args are not a list"
                continue
            # --server NAME: rules in a shared policy file can address this server (Rule.server)
            prefix = [*base, "--server", name, "--"]
            entry["command"], entry["args"] = prefix[0], [*prefix[1:], entry["command"], *map(str, args)]
            change.changed.append(shown)
    _check_named(servers, seen)
    if change.changed:
        change.text = _dump(doc, text)
    return change


def unwrap_config(text: str, *, servers: Sequence[str] = (), original: str | None = None) -> Change:
    """``text`` with the proxy taken out of every wrapped server (or the ``servers`` named).

    ``original``: the pre-wrap text (the backup), if known. When the result equals it as JSON, the original
    bytes come back, and an entry that had no ``args`` gets none again."""
    doc = _load(text)
    before = _maybe_load(original)
    originals = {label + name: entry for label, group in _servers(before) for name, entry in group.items()}
    change = Change(text=text)
    seen: set[str] = set()
    for label, group in _servers(doc):
        for name, entry in group.items():
            seen.add(name)
            if servers and name not in servers:
                continue
            split = _split(entry) if isinstance(entry, dict) else None
            if split is None:
                continue
            argv = split[1]
            old = originals.get(label + name)
            entry["command"] = argv[0]
            if argv[1:] or not (isinstance(old, dict) and "args" not in old):
                entry["args"] = argv[1:]
            else:
                del entry["args"]
            change.changed.append(label + name)
    _check_named(servers, seen)
    if change.changed:
        change.text = original if before is not None and before == doc and original is not None else _dump(doc, text)
    return change


def _check_named(servers: Sequence[str], seen: set[str]) -> None:
    missing = [s for s in servers if s not in seen]
    if missing:
        raise ValueError(f"no server named {', '.join(map(repr, missing))} (servers: {', '.join(sorted(seen))})")


def _load(text: str) -> Any:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        launcher = json.dumps(proxy_command()[0])
        raise ValueError(
            f"not plain JSON ({exc}). If it has comments or trailing commas (JSONC), hostshape does not rewrite it, "
            f'because the comments would be lost: edit each server by hand, setting "command": {launcher} and '
            '"args": ["proxy", "--", <its command>, <its args>...].'
        ) from None
    if not isinstance(doc, dict):
        raise ValueError("not a JSON object")
    return doc


def _maybe_load(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _dump(doc: Any, like: str) -> str:
    """``doc`` as JSON in the layout of ``like``: its indentation, its final newline, non-ASCII kept."""
    indent: int | str = 2
    for line in like.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            indent = lead if "\t" in lead else len(lead)
            break
    text = json.dumps(doc, indent=indent, ensure_ascii=False)
    newline = "\r\n" if "\r\n" in like else "\n"
    if newline != "\n":
        text = text.replace("\n", newline)
    return text + newline if like.endswith(("\n", "\r\n")) else text


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as f:  # keep \r\n as it is
        return f.read()


def _write(path: Path, text: str, backup_suffix: str) -> Path:
    backup = path.with_name(path.name + backup_suffix)
    shutil.copy2(path, backup)
    mode = path.stat().st_mode
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(temp, mode & 0o7777)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return backup


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hostshape proxy-config",
        description="Put the stdio MCP servers of a host's configuration file (Claude Desktop, Cursor, Windsurf, "
        "Claude Code .mcp.json: mcpServers; VS Code mcp.json: servers) behind hostshape proxy, or undo "
        "it. Writes FILE.before-hostshape-wrap / -unwrap first.",
    )
    parser.add_argument(
        "action",
        choices=("wrap", "unwrap", "show"),
        help="wrap / unwrap the file; show: print the wrapped file without writing anything",
    )
    parser.add_argument("file", type=Path)
    parser.add_argument("--server", action="append", default=[], help="only this server (repeatable)")
    parser.add_argument("--policy", help="policy TOML file the proxy should use (made absolute)")
    parser.add_argument("--budget", type=int, help="token budget the proxy should use")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The ``hostshape proxy-config`` command; returns the exit code."""
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    path: Path = args.file
    try:
        text = _read(path)
    except OSError as exc:
        print(f"hostshape proxy-config: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    options: list[str] = []
    if args.policy:
        options += ["--policy", str(Path(args.policy).expanduser().resolve())]
    if args.budget:
        options += ["--budget", str(args.budget)]
    try:
        if args.action == "unwrap":
            backup = path.with_name(path.name + WRAP_BACKUP)
            original = _read(backup) if backup.exists() else None
            change = unwrap_config(text, servers=args.server, original=original)
        else:
            change = wrap_config(text, servers=args.server, options=options)
    except ValueError as exc:
        print(f"hostshape proxy-config: {path}: {exc}", file=sys.stderr)
        return 2
    if args.action == "show":
        sys.stdout.write(change.text)
        return 0
    for name, why in change.skipped.items():
        print(f"  {name}: left alone ({why})", file=sys.stderr)
    if not change.changed:
        print(f"hostshape proxy-config: nothing to {args.action} in {path}", file=sys.stderr)
        return 0
    backup = _write(path, change.text, WRAP_BACKUP if args.action == "wrap" else UNWRAP_BACKUP)
    verb = "now behind hostshape proxy" if args.action == "wrap" else "no longer behind hostshape proxy"
    print(
        f"hostshape proxy-config: {', '.join(change.changed)} {verb} in {path} (backup: {backup}). Restart the "
        "host to apply.",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

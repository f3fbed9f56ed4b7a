"""``hostshape proxy-config wrap|unwrap FILE``: put a host's stdio MCP servers behind ``hostshape proxy``, or undo it.

Reads the MCP configuration forms hosts use:

- ``{"mcpServers": {...}}``: Claude Desktop (``claude_desktop_config.json``), Cursor (``~/.cursor/mcp.json``,
  ``.cursor/mcp.json``), Windsurf, Claude Code (``.mcp.json``; ``~/.claude.json`` also under ``projects.<path>``);
- ``{"servers": {...}}``: VS Code ``.vscode/mcp.json`` (and ``{"mcp": {"servers": ...}}`` in ``settings.json``).

``wrap`` turns each stdio server (an entry with ``command``), or only those named with ``--server``, from
``{"command": C, "args": A, ...}`` into
``{"command": <hostshape>, "args": ["proxy", <options>, "--server=NAME", "--", C, *A], ...}``
(``--server`` lets rules of a shared policy file name the server).
Every other key (``env``, ``cwd``, ``type``, ``disabled``, ...) and every other entry stays as it was; servers
reached by URL are left alone (point a proxy at them with ``hostshape proxy --url``). ``unwrap`` restores
``command`` and ``args`` from what follows ``--``. Both write a backup next to the file first
(``FILE.before-hostshape-wrap`` / ``FILE.before-hostshape-unwrap``), write atomically, keep the file's indentation,
final newline, encoding, owner and mode, and change nothing when there is nothing to do. A ``wrap`` followed by
``unwrap`` gives back the original bytes (the pre-wrap backup is used when the unwrapped content equals it).
Numbers, non-string ``args`` and every other value are written back as they were (``config_json``).

Refused, with a message and nothing written: files with comments (JSONC: rewriting them would lose the comments),
a key repeated in one object (one value would be lost), text that is not UTF-8/16/32, and a backup path that is a
symbolic link (a planted link would make hostshape overwrite whatever it points to). A config file that is a
symbolic link is updated at its target, and stays a link (``atomic_file``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hostshape.cli import config_json
from hostshape.cli.atomic_file import UnsafePath, read_backup, read_bytes, replace_file

__all__ = ["Change", "main", "proxy_command", "unwrap_config", "wrap_config"]

WRAP_BACKUP = ".before-hostshape-wrap"
UNWRAP_BACKUP = ".before-hostshape-unwrap"
# ``hostshape proxy`` options that take a value: the scan for the ``--`` that ends them skips their values
# (hostshape/proxy/cli.py _parser).
_VALUED = frozenset(
    {"--policy", "--budget", "--server", "--url", "--transport", "--header", "--http", "--output-schemas", "--timeout"}
)


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


def _split(entry: dict[str, Any]) -> tuple[list[str], list[Any]] | None:
    """(proxy prefix, original argv) when ``entry`` runs a server behind hostshape proxy, else None. The original
    argv is kept as written (its args may be any JSON values); the prefix is strings up to the ``--`` that ends the
    proxy's options (an option's value, such as a server named ``--``, is not that ``--``)."""
    command, args = entry.get("command"), entry.get("args")
    if not isinstance(command, str) or not isinstance(args, list):
        return None
    argv = [command, *args]
    at = next((i for i, a in enumerate(argv) if a == "proxy"), None)
    if at is None or not any(isinstance(a, str) and "hostshape" in a for a in argv[:at]):
        return None
    i = at + 1
    while i < len(argv):
        arg = argv[i]
        if not isinstance(arg, str):
            return None
        if arg == "--":
            return (argv[: i + 1], argv[i + 1 :]) if i + 1 < len(argv) else None
        i += 2 if arg in _VALUED else 1
    return None


def wrap_config(
    text: str, *, servers: Sequence[str] = (), options: Sequence[str] = (), launcher: Sequence[str] | None = None
) -> Change:
    """``text`` (a host config) with its stdio servers, or the ``servers`` named, behind the proxy.

    ``options`` go to ``hostshape proxy`` before ``--`` (e.g. ``["--policy", "/path/policy.toml"]``). Raises
    ValueError for text that is not a JSON object or names a server that does not exist."""
    doc = _load(text)
    base = [*(launcher or proxy_command()), "proxy", *options]
    change = Change(text=text)
    for shown, name, entry in _chosen(doc, servers):
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
        # --server=NAME: rules in a shared policy file can address this server (Rule.server); one argument,
        # so that a name such as "-dev" or "--" is never read as an option or as the end of the options
        prefix = [*base, f"--server={name}", "--"]
        entry["command"], entry["args"] = prefix[0], [*prefix[1:], entry["command"], *args]
        change.changed.append(shown)
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
    for shown, _, entry in _chosen(doc, servers):
        split = _split(entry) if isinstance(entry, dict) else None
        if split is None:
            continue
        argv = split[1]
        old = originals.get(shown)
        entry["command"] = argv[0]
        if argv[1:] or not (isinstance(old, dict) and "args" not in old):
            entry["args"] = argv[1:]
        else:
            del entry["args"]
        change.changed.append(shown)
    if change.changed:
        change.text = original if before is not None and before == doc and original is not None else _dump(doc, text)
    return change


def _chosen(doc: Any, servers: Sequence[str]) -> list[tuple[str, str, Any]]:
    """The server entries of ``doc`` to change, as (label + name, name, entry): all, or those ``servers`` names.
    Raises ValueError when a name in ``servers`` is no server's."""
    every = [(label + name, name, entry) for label, group in _servers(doc) for name, entry in group.items()]
    seen = {name for _, name, _ in every}
    missing = [s for s in servers if s not in seen]
    if missing:
        raise ValueError(
            f"no server named {', '.join(map(ascii, missing))} (servers: {', '.join(map(_shown, sorted(seen)))})"
        )
    return [chosen for chosen in every if not servers or chosen[1] in servers]


def _load(text: str) -> Any:
    try:
        doc = config_json.load(text)
    except RecursionError:
        raise ValueError("nested too deep to read as JSON; hostshape does not rewrite it") from None
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
        return config_json.load(text)
    except (ValueError, RecursionError):
        return None


def _dump(doc: Any, like: str) -> str:
    return config_json.dump(doc, like)


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
    args = _parser().parse_args(_glue(list(sys.argv[1:] if argv is None else argv)))
    path: Path = args.file
    if args.action == "wrap":  # the host would launch a proxy that fails: every wrapped server down
        from hostshape.proxy.sdk import require_mcp

        try:
            require_mcp()
        except ImportError as exc:
            print(
                f"hostshape proxy-config: not wrapping {path}: hostshape proxy cannot start here ({exc})",
                file=sys.stderr,
            )
            return 2
    try:
        data = read_bytes(path)
    except OSError as exc:
        print(f"hostshape proxy-config: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    options: list[str] = []
    if args.policy:
        options += ["--policy", str(Path(args.policy).expanduser().resolve())]
    if args.budget:
        options += ["--budget", str(args.budget)]
    wrap_backup = path.with_name(path.name + WRAP_BACKUP)
    try:
        text, encoding = config_json.decode(data)
        if args.action == "unwrap":
            saved = read_backup(wrap_backup)
            original = _decode_or_none(saved)
            change = unwrap_config(text, servers=args.server, original=original)
        else:
            change = wrap_config(text, servers=args.server, options=options)
    except (ValueError, UnsafePath) as exc:
        print(f"hostshape proxy-config: {path}: {exc}", file=sys.stderr)
        return 2
    if args.action == "show":
        sys.stdout.write(change.text)
        return 0
    for name, why in change.skipped.items():
        print(f"  {_shown(name)}: left alone ({why})", file=sys.stderr)
    if not change.changed:
        print(f"hostshape proxy-config: nothing to {args.action} in {path}", file=sys.stderr)
        return 0
    backup = path.with_name(path.name + (WRAP_BACKUP if args.action == "wrap" else UNWRAP_BACKUP))
    try:
        written = replace_file(path, encoding.encode(change.text), backup=backup, old=data)
    except OSError as exc:
        print(f"hostshape proxy-config: {path}: not changed: {exc.strerror or exc}", file=sys.stderr)
        return 2
    verb = "now behind hostshape proxy" if args.action == "wrap" else "no longer behind hostshape proxy"
    via = f" (a link: updated its target {written})" if written != path.absolute() else ""
    print(
        f"hostshape proxy-config: {', '.join(map(_shown, change.changed))} {verb} in {path}{via} (backup: {backup}). "
        "Restart the host to apply.",
        file=sys.stderr,
    )
    return 0


def _glue(argv: list[str]) -> list[str]:
    """``--server NAME`` as ``--server=NAME``: a server may be named ``-dev``, which argparse would take for an
    option."""
    out: list[str] = []
    rest = iter(argv)
    for arg in rest:
        value = next(rest, None) if arg == "--server" else None
        out.append(f"{arg}={value}" if value is not None else arg)
    return out


def _shown(name: str) -> str:
    """A server's name for the terminal: as written, or quoted with escapes when it holds a control character (a
    config from a cloned project could otherwise send escape sequences to the terminal), cut past 200."""
    shown = name if name.isprintable() else ascii(name)
    return shown if len(shown) <= 200 else shown[:199] + "…"


def _decode_or_none(data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        return config_json.decode(data)[0]
    except ValueError:
        return None


if __name__ == "__main__":
    raise SystemExit(main())

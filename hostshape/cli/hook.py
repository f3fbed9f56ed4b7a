"""``hostshape hook <host>``: hostshape as a command hook, for people who configure their agent in settings files.

Claude Code runs a command hook once per tool call: it writes the hook input as JSON on the command's stdin and
reads the hook output as JSON from its stdout. ``hostshape hook claude-code`` reads one PostToolUse (or
PostToolUseFailure) input, shapes the MCP tool result with the Claude adapter
(``hostshape.adapters.claude.shape_hook_input``, which also rescues results Claude Code saved to a file because
they were over MAX_MCP_OUTPUT_TOKENS) and writes the hook output, or nothing when the result should be left as it
is. It fires AFTER Claude Code's own size limit (docs/hosts.md names the tests that prove the under-limit and the
over-limit rescue case with the real CLI).

``hostshape hook codex`` does the same for OpenAI's Codex CLI with ``hostshape.adapters.codex``. This module holds
only the command line: arguments, the policy file, stdin and stdout; each host's adapter does the rest.

Contract:

- Exit status 0 whatever arrives on stdin (empty, not JSON, not a hook input, an unexpected event); such input
  gets no output. Only a usage error or a policy file that cannot be read exits 1, which both hosts treat as a
  non-blocking hook error (the tool result goes through unchanged and the user sees the message). Never exit 2:
  for PostToolUse both hosts would send stderr to the model.
- stdout carries nothing but one hook-output JSON object; diagnostics go to stderr (logger ``hostshape``).
- Policy: the rule every command uses (``hostshape.cli.policy_file``): ``--policy FILE``, else ``$HOSTSHAPE_POLICY``,
  else ``$CLAUDE_PROJECT_DIR/.hostshape.toml`` (the current directory when that variable is unset), else
  ``$XDG_CONFIG_HOME/hostshape/policy.toml`` (``~/.config/...`` when unset); else the default ``Policy()``.
- Start-up is the cost of a per-call hook, so imports are lazy and a result whose UTF-8 size is within the budget
  is left alone without loading the tokenizer: every o200k token covers at least one byte, so ``bytes <= budget``
  implies ``tokens <= budget``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hostshape.policy import Policy

HOSTS = ("claude-code", "codex")

# Hook input larger than this is not read (Claude Code hands over at most ~MAX_MCP_OUTPUT_TOKENS x 4 characters
# of result inline; anything bigger it saves to a file and passes the path): an MCP result that large is
# answered with the one refusal, fitted to the budget.
MAX_INPUT_BYTES = 64 * 1024 * 1024
# Reading stdin stops at end of file; or, when the host leaves stdin open, once what arrived is a whole JSON object
# and nothing more came for IDLE_S seconds; in any case after READ_TIMEOUT_S seconds (what arrived by then is used).
READ_TIMEOUT_S = 15.0
IDLE_S = 0.25
# How much of the start of an input too large to parse is searched for its event and tool name.
HEAD_BYTES = 1024 * 1024

USAGE = """usage: hostshape hook {claude-code,codex} [--policy FILE]

Reads one PostToolUse (Claude Code also: PostToolUseFailure) hook input (JSON) on stdin and writes the hook
output (JSON) on stdout, or nothing when the tool result is left as it is. Claude Code, in settings.json:

  {"hooks": {"PostToolUse": [{"matcher": "mcp__.*",
     "hooks": [{"type": "command", "command": "hostshape hook claude-code"}]}]}}

Codex, in config.toml:

  [[hooks.PostToolUse]]
  matcher = "mcp__.*"
  [[hooks.PostToolUse.hooks]]
  type = "command"
  command = "hostshape hook codex"

Policy: --policy FILE, else $HOSTSHAPE_POLICY, else $CLAUDE_PROJECT_DIR/.hostshape.toml (or ./.hostshape.toml),
else $XDG_CONFIG_HOME/hostshape/policy.toml (or ~/.config/hostshape/policy.toml), else the defaults.
"""


class _UsageError(Exception):
    pass


def main(argv: list[str] | None = None, stdin: IO[Any] | None = None, stdout: IO[Any] | None = None) -> int:
    """Run one hook invocation: ``argv`` is ``[host, "--policy", FILE]`` (without ``hook``); returns the exit code.

    Returns 0 for any stdin (writing hook JSON or nothing), 1 for a usage or policy-file error (message on stderr).
    Never raises except KeyboardInterrupt/SystemExit from the interpreter.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    try:
        host, policy_file = _parse_args(argv)
    except _UsageError as exc:
        if str(exc):
            print(f"hostshape hook: {exc}", file=sys.stderr)
        print(USAGE, file=sys.stderr, end="")
        return 0 if not str(exc) else 1
    try:
        policy_path = Path(policy_file) if policy_file else find_policy_file()
    except Exception as exc:  # an unreadable home directory, say: fall back to the defaults
        _log().warning("policy lookup failed (%s); using the defaults", exc)
        policy_path = None
    try:
        output = _respond(host, _read(stdin), policy_path)
    except _PolicyError as exc:
        print(f"hostshape hook: cannot use policy file {policy_path}: {exc}", file=sys.stderr)
        return 1
    except Exception:  # never let a fault reach the host: log it and leave the result as it is
        _log().exception("%s: unexpected fault; tool result left unchanged", host)
        return 0
    if output is not None:
        try:
            _write(stdout, output)
        except OSError as exc:  # the host closed the pipe: nothing more to do
            _log().warning("could not write the hook output: %s", exc)
    return 0


def _parse_args(argv: Sequence[str]) -> tuple[str, str | None]:
    # Hand-rolled rather than argparse: a per-call hook pays for every import, and argparse exits 2 on errors,
    # which Claude Code treats as "blocking" and feeds to the model.
    if not argv or argv[0] in ("-h", "--help"):
        raise _UsageError("" if argv else "missing host")
    host, rest = argv[0], list(argv[1:])
    if host not in HOSTS:
        raise _UsageError(f"unknown host {host!r}; supported: {', '.join(HOSTS)}")
    policy_file: str | None = None
    while rest:
        arg = rest.pop(0)
        if arg == "--policy" and rest:
            policy_file = rest.pop(0)
        elif arg.startswith("--policy="):
            policy_file = arg.partition("=")[2]
        elif arg in ("-h", "--help"):
            raise _UsageError("")
        else:
            raise _UsageError(f"unexpected argument {arg!r}")
    return host, policy_file


def policy_candidates(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The policy files looked for when ``--policy`` is not given, first found wins: ``$HOSTSHAPE_POLICY``, then
    ``.hostshape.toml`` in ``$CLAUDE_PROJECT_DIR`` (Claude Code sets it for hooks; else the current directory), then
    the user's ``$XDG_CONFIG_HOME/hostshape/policy.toml``. The rule is ``hostshape.cli.policy_file``'s, shared by every
    command."""
    from hostshape.cli import policy_file

    env = os.environ if environ is None else environ
    return policy_file.candidates(env, env.get("CLAUDE_PROJECT_DIR"))


def find_policy_file(environ: Mapping[str, str] | None = None) -> Path | None:
    """The policy file to use without ``--policy``, or None (use the defaults)."""
    from hostshape.cli import policy_file

    env = os.environ if environ is None else environ
    return policy_file.find(None, env, env.get("CLAUDE_PROJECT_DIR"))


class _PolicyError(Exception):
    pass


def _load_policy(path: Path | None) -> Policy:
    from hostshape.policy import Policy

    if path is None:
        return Policy()
    try:
        return Policy.from_toml(path)
    except Exception as exc:  # OSError, TOMLDecodeError, ValueError for unknown keys or bad values
        raise _PolicyError(f"{type(exc).__name__}: {exc}") from exc


class _Unread:
    """Hook input that could not be read whole (over MAX_INPUT_BYTES, or stdin still open and incomplete after
    READ_TIMEOUT_S): its event and tool name, as found at its start, and why."""

    def __init__(self, head: bytes, why: str) -> None:
        import re

        def field(name: str) -> str | None:
            found = re.search(rb'"' + name.encode() + rb'"\s*:\s*"((?:[^"\\]|\\.){0,512})"', head)
            return found.group(1).decode("utf-8", "replace") if found else None

        self.event, self.tool_name, self.why = field("hook_event_name"), field("tool_name"), why


def _read(stdin: IO[Any]) -> dict[str, Any] | _Unread | None:
    """The parsed hook input; an _Unread when it is too large or never ended; None when stdin holds no JSON object."""
    stream = getattr(stdin, "buffer", stdin)
    raw, complete = _read_bounded(stream)
    if len(raw) > MAX_INPUT_BYTES:
        _log().warning("hook input over %d bytes: not parsed", MAX_INPUT_BYTES)
        return _Unread(raw[:HEAD_BYTES], f"hook input over {MAX_INPUT_BYTES // (1024 * 1024)} MB")
    try:
        data = _loads(raw)
    except RecursionError:  # a tool's structured content nested past the parser's depth: refused, never unshaped
        _log().warning("hook input nested too deep to parse")
        return _Unread(raw[:HEAD_BYTES], "hook input nested too deep to parse")
    except ValueError as exc:  # includes UnicodeDecodeError
        if not complete:
            _log().warning("stdin still open after %g s with an incomplete input", READ_TIMEOUT_S)
            return _Unread(raw[:HEAD_BYTES], f"hook input incomplete after {READ_TIMEOUT_S:g} s")
        _log().warning("stdin is not JSON (%s); nothing to do", exc)
        return None
    if not isinstance(data, dict):
        _log().warning("stdin is not a JSON object; nothing to do")
        return None
    return data


def _loads(raw: bytes) -> Any:
    """``json.loads(raw)``; bytes that are not UTF-8 (a host's encoder never writes them, a hostile one may) are
    read as U+FFFD, as hosts show them, rather than making the whole input "not JSON" and the result pass
    unshaped."""
    import json

    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        _log().warning("hook input is not valid UTF-8: undecodable bytes read as U+FFFD")
        return json.loads(raw.decode("utf-8", "replace"))


def _read_bounded(stream: Any) -> tuple[bytes, bool]:
    """Up to MAX_INPUT_BYTES + 1 bytes of ``stream`` and whether it ended (end of file, or a whole JSON object
    followed by IDLE_S of silence); reading stops after READ_TIMEOUT_S seconds in any case."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # an in-memory stream: it ends
        return stream.read(MAX_INPUT_BYTES + 1), True
    import select
    import time

    if os.name == "nt":  # select() takes only sockets there
        return stream.read(MAX_INPUT_BYTES + 1), True
    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + READ_TIMEOUT_S
    while size <= MAX_INPUT_BYTES:
        left = deadline - time.monotonic()
        if left <= 0:
            return b"".join(chunks), False
        ready, _, _ = select.select([fd], [], [], min(IDLE_S, left))
        if not ready:
            if chunks and _looks_whole(chunks):
                data = b"".join(chunks)
                if _parses(data):
                    return data, True
            continue
        chunk = os.read(fd, min(1 << 20, MAX_INPUT_BYTES + 1 - size))
        if not chunk:
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False


def _looks_whole(chunks: list[bytes]) -> bool:
    """True when the input so far ends like a JSON object (a cheap test before parsing it)."""
    return chunks[-1].rstrip().endswith(b"}")


def _parses(data: bytes) -> bool:
    import json

    try:
        json.loads(data.decode("utf-8", "replace"))  # as _loads reads it
    except RecursionError:  # whole, as far as can be told: _read answers it
        return True
    except ValueError:
        return False
    return True


def _respond(host: str, data: dict[str, Any] | _Unread | None, policy_path: Path | None) -> dict[str, Any] | None:
    """The hook output for ``data``, or None to leave the tool result as the host made it."""
    if data is None:
        return None
    if isinstance(data, _Unread):
        return _refused(host, data, policy_path)
    event = data.get("hook_event_name")
    handled = ("PostToolUse", "PostToolUseFailure") if host == "claude-code" else ("PostToolUse",)
    if event not in handled:
        _log().info("event %r is not handled for %s", event, host)
        return None
    tool_name = data.get("tool_name")
    if not isinstance(tool_name, str) or not tool_name.startswith("mcp__"):
        return None  # only MCP tool results are reshaped
    policy = _load_policy(policy_path)
    # PostToolUse carries the result in tool_response; PostToolUseFailure the error text in error.
    if _obviously_fits(data.get("tool_response" if event == "PostToolUse" else "error"), tool_name, policy):
        return None
    import contextlib

    _log()  # route the adapter's and the core's log records to stderr
    try:
        with contextlib.redirect_stdout(sys.stderr):  # nothing the library prints may corrupt the hook output
            output = _adapter_output(host, data, policy)
    except Exception as exc:  # the glue's own fault: log it, then follow policy.on_fault
        _log().exception("%s: fault while shaping %s", host, tool_name)
        return _fault_output(host, data, str(event), exc, policy)
    return output if isinstance(output, dict) and output else None


def _refused(host: str, unread: _Unread, policy_path: Path | None) -> dict[str, Any] | None:
    """The one refusal, fitted to the budget, in place of an MCP result whose hook input could not be read whole:
    never the result unshaped. Other tools' results, and events that cannot replace a result, are left alone."""
    if unread.event != "PostToolUse" or not (unread.tool_name or "").startswith("mcp__"):
        return None
    from hostshape.adapters.claude_code import split_tool_name
    from hostshape.host import HostForm, refusal_for

    server, tool = split_tool_name(str(unread.tool_name))
    host_form = HostForm(max_bytes=_codex_feedback_bytes()) if host == "codex" else HostForm()
    text = refusal_for(_load_policy(policy_path), unread.why, tool=tool, server=server, host=host_form)
    if host == "codex":
        from hostshape.adapters.codex import refusal_output

        return refusal_output(text)
    from hostshape.adapters.claude_code import post_tool_use_output

    return post_tool_use_output(text)


def _codex_feedback_bytes() -> int:
    from hostshape.adapters.codex import MAX_FEEDBACK_BYTES

    return MAX_FEEDBACK_BYTES


def _adapter_output(host: str, data: dict[str, Any], policy: Policy) -> dict[str, Any] | None:
    if host == "codex":
        from hostshape.adapters import codex

        return codex.shape_hook_input(data, policy)
    from hostshape.adapters.claude import shape_hook_input

    return shape_hook_input(data, policy)


def _fault_output(host: str, data: dict[str, Any], event: str, exc: Exception, policy: Policy) -> dict[str, Any] | None:
    """The core's answer to a fault in the glue (``hostshape.host.glue_fault``), in the host's hook output; None
    leaves the result as the host made it."""
    from hostshape.host import glue_fault

    text = glue_fault(data.get("tool_response" if event == "PostToolUse" else "error"), policy, exc)
    if text is None:
        return None
    if host == "codex":
        from hostshape.adapters.codex import refusal_output

        return refusal_output(text)
    if event == "PostToolUseFailure":
        return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    from hostshape.adapters.claude_code import post_tool_use_output

    return post_tool_use_output(text)


def _obviously_fits(response: Any, tool_name: str, policy: Policy) -> bool:
    """True when the result certainly fits the budget and no rule reshapes it: no tokenizer needed.

    Sound because every o200k/cl100k token encodes at least one byte, so ``tokens <= utf8_bytes``, and the bytes
    measured are an upper bound on what the model reads: the text itself (Claude Code: a string or text blocks), or
    the whole CallToolResult serialised (Codex: text blocks plus structuredContent). Anything that is not plain text
    (images, resources, unknown shapes) and the host's own over-limit notices go to the adapter.
    """
    import json

    from hostshape.adapters.claude_code import HOST_MAX_CHARS, mentions_notice, split_tool_name, texts_of
    from hostshape.host import HostForm, fits_by_size

    texts = texts_of(response)
    if texts is None and isinstance(response, dict) and texts_of(response.get("content")) is not None:
        texts = [json.dumps(response, ensure_ascii=False)]
    if texts is None or any(mentions_notice(t) for t in texts):
        return False
    server, tool = split_tool_name(tool_name)
    # Claude Code persists any result over its character limit after the hook: such a result is never skipped.
    if not fits_by_size(texts, policy, tool=tool, server=server, host=HostForm(max_chars=HOST_MAX_CHARS)):
        return False
    # what may imitate hostshape's envelope, in a text or a structured copy (the core flags it: pipeline.leave_alone)
    from hostshape.output.envelope import KEY, TEXT_PREFIX

    seen = json.dumps(response, ensure_ascii=False) if isinstance(response, dict) else "".join(texts)
    return KEY not in seen and TEXT_PREFIX not in seen


def _write(stdout: IO[Any], output: dict[str, Any]) -> None:
    import json

    text = json.dumps(output, ensure_ascii=False, separators=(",", ":"))
    stream = getattr(stdout, "buffer", None)
    if stream is not None:
        stream.write(text.encode("utf-8"))
        stream.flush()
    else:
        stdout.write(text)
        stdout.flush()


def _log() -> Any:
    """The ``hostshape`` logger, writing to stderr when nothing else is configured (never to stdout)."""
    import logging

    logger = logging.getLogger("hostshape.hook")
    root = logging.getLogger("hostshape")
    if not root.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
        from hostshape.cli.log_level import log_level

        level, problem = log_level(os.environ.get("HOSTSHAPE_LOG_LEVEL"))
        root.setLevel(level)
        if problem:
            logger.warning("%s", problem)
    return logger


def __getattr__(name: str) -> Any:
    if name == "CODEX_MAX_FEEDBACK_BYTES":  # kept for callers of the former constant; lazily, for start-up time
        from hostshape.adapters.codex import MAX_FEEDBACK_BYTES

        return MAX_FEEDBACK_BYTES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    sys.exit(main())

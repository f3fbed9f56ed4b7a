"""What every adapter shares: requiring its framework, defaulting the policy, and the retrieval function each host
wraps in its own tool type."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hostshape.host import HostForm
from hostshape.policy import Policy

if TYPE_CHECKING:  # pragma: no cover - typing only
    from hostshape.input.contract import ToolResult
    from hostshape.result import Shaped

log = logging.getLogger("hostshape.adapters")


def require(extra: str, *modules: str) -> None:
    """Import ``modules`` or raise ImportError telling the user to ``pip install 'hostshape[extra]'``."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise ImportError(
                f"hostshape's {extra} adapter needs the {module!r} package: pip install 'hostshape[{extra}]'"
            ) from exc


def default_policy(policy: Policy | None, *, retrieval_tool: str | None = None) -> Policy:
    """``policy``, or the default ``Policy()``; with ``retrieval_tool`` set when given (so envelopes name it)."""
    chosen = policy if policy is not None else Policy()
    return chosen.replace(retrieval_tool=retrieval_tool) if retrieval_tool is not None else chosen


def read_page(
    handle: object,
    query: object = "",
    cursor: object = "",
    *,
    policy: Policy,
    host: HostForm | None = None,
    **part: object,
) -> str:
    """The body of every host's ``hostshape_read`` tool: one budgeted page of a saved result, as text.

    ``part`` (``section``, ``lines``, ``grep``) reads one part of a text result (hostshape.retrieve.read). ``host``
    says how the host sends the page (``HostForm.wrap``); the page then fits the budget in that form. Never raises
    and never returns an empty string: a failure comes back as text naming the remedy.
    """
    from hostshape.host import read_for_host

    def given(value: object) -> str | None:
        return str(value or "") or None

    try:
        parts = {name: given(part.get(name)) for name in ("section", "lines", "grep")}
        text = read_for_host(str(handle or ""), given(query), given(cursor), policy, host, **parts)
    except Exception as exc:  # read() never raises by contract; this guards the host anyway
        log.exception("hostshape_read failed for handle %r", handle)
        from hostshape.host import refusal_for

        text = refusal_for(policy, exc, host=host)
    return text or "[hostshape] empty page"


def read_function(policy: Policy) -> Callable[..., str]:
    """The plain ``hostshape_read(handle, query, cursor, section, lines, grep) -> str`` function reading with
    ``policy``: what a host whose tool type is built from a function's name and signature wraps."""

    def hostshape_read(
        handle: str, query: str = "", cursor: str = "", section: str = "", lines: str = "", grep: str = ""
    ) -> str:
        return read_page(handle, query, cursor, section=section, lines=lines, grep=grep, policy=policy)

    return hostshape_read


class Routed:
    """What a host's hook object holds: the policy it shapes by, and the server its rules route by when the host
    names none."""

    def __init__(self, policy: Policy, server: str | None = None) -> None:
        self.policy = policy
        self.server = server


def rule_names(policy: Policy, tool: str | None, server: str | None) -> bool:
    """True when a rule of ``policy`` names ``tool`` (a tool pattern more than a bare ``*``): how an adapter decides
    to shape a result of a tool that is not an MCP tool, which it otherwise leaves alone."""
    rule = policy.rule_for(tool, server)
    return rule is not None and rule.tool.strip("*") != ""


def shape_for_host(
    result: ToolResult,
    *,
    policy: Policy,
    tool: str | None,
    server: str | None,
    args: object = None,
    host: HostForm | None = None,
) -> Shaped:
    """``hostshape.shape`` as an adapter calls it: the input contract its host's objects were decoded into, and the
    call's arguments as a plain dict (``{}`` when the host gave none, or not a mapping)."""
    from hostshape import shape

    given = dict(args) if isinstance(args, Mapping) else {}
    return shape(result, policy=policy, tool=tool, server=server, args=given, host=host)


def install_parts(
    target: Any, policy: Policy | None, make: Callable[[Policy], Any], read_tool: Callable[[Policy], Any], kind: type
) -> tuple[Any, Any, Any]:
    """What ``install(target, policy)`` shares in every host whose target is an agent: (the agent or None, the hook
    ``make`` builds, the ``hostshape_read`` tool), both made with the policy's ``retrieval_tool`` set so envelopes
    name it. ``install(policy)`` and ``install()`` give no agent; a target of another type than ``kind`` is refused."""
    from hostshape.wayback.retrieve import RETRIEVAL_TOOL

    if isinstance(target, Policy):
        target, policy = None, target
    if target is not None and not isinstance(target, kind):
        raise TypeError(f"install() takes a {kind.__module__}.{kind.__name__} or a Policy, not {type(target).__name__}")
    chosen = default_policy(policy, retrieval_tool=RETRIEVAL_TOOL)
    return target, make(chosen), read_tool(chosen)

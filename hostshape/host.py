"""The seam between the core and every host: what the model reads when hostshape leaves a result alone, how a host
sends hostshape's replacement text, the host's own caps, and notes the host's own cuts call for.

An adapter describes its host with a ``HostForm`` and calls ``shape(raw, ..., host=form)`` once; the core decides
whether the host's result is left alone, fits the replacement *in the form the host sends it* (for example
``{"result": text}`` JSON-encoded by ADK and LiteLLM) to the tool's budget and to the host's character or byte cap,
heads it with a host note when there is room, and answers a fault. Adapters never count tokens or loop on a budget.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hostshape.fit.budget import Limit
from hostshape.policy import Policy

if TYPE_CHECKING:
    from hostshape.result import Shaped

# Re-shaping rounds when the host's form of the text overshoots a cap. Each round divides the budget by the growth
# the host's form caused (escaping grows text by a roughly constant ratio); one round sufficed on every corpus file.
MAX_ROUNDS = 4

# The one refusal, longest wording first: the core and every adapter answer a fault they cannot shape with the
# longest of these that fits. ``{fault}`` is the exception's type name, ``{tool}`` the tool's name ("the tool").
REFUSALS = (
    "[hostshape] this result could not be shaped ({fault}) and was withheld. Remedy: call {tool} again with "
    "narrower arguments, or set on_fault='pass' to receive results unshaped.",
    "[hostshape] result withheld (hostshape failed); retry with narrower arguments, or set on_fault='pass'.",
    "[hostshape] withheld",
)


@dataclass(frozen=True)
class HostForm:
    """What one host shows the model, and the limits it puts on hostshape's replacement.

    - ``as_is``: the exact text the model reads when the result is left alone (Claude Code's ``{"result": ...}``
      string, ADK's dumped ``CallToolResult``); None when that is the unwrapped text the core measures anyway.
    - ``wrap``: how the host sends a replacement ``text`` (ADK and LiteLLM: ``json.dumps({"result": text})``); the
      budget and the caps hold for ``wrap(text)``. None: the text is sent as it is.
    - ``max_chars`` / ``max_bytes``: the host's own cap on the replacement, in characters / UTF-8 bytes.
    - ``notes``: one host note in decreasing lengths (e.g. "Claude Code truncated this result ..."); the first that
      leaves half the budget heads the text on its own line, none when even the last does not.
    - ``replace``: the host's result is only a notice (an overflow the adapter read back), so even a result that fits
      replaces it.
    """

    as_is: str | None = None
    wrap: Callable[[str], str] | None = None
    max_chars: int | None = None
    max_bytes: int | None = None
    notes: tuple[str, ...] = ()
    replace: bool = False


def json_result(text: str) -> str:
    """``{"result": text}`` as ADK's LiteLLM connector and Claude's FastMCP wrapper send it (non-ASCII kept)."""
    return json.dumps({"result": text}, ensure_ascii=False)


@dataclass(frozen=True)
class HostLimit:
    """Does this text fit the tool's budget and the host's caps, in the form the host sends it?"""

    limit: Limit
    host: HostForm

    def sent(self, text: str) -> str:
        return self.host.wrap(text) if self.host.wrap is not None else text

    def fits(self, text: str) -> bool:
        wire = self.sent(text)
        if self.host.max_chars is not None and len(wire) > self.host.max_chars:
            return False
        if self.host.max_bytes is not None and len(wire.encode("utf-8", "surrogatepass")) > self.host.max_bytes:
            return False
        return self.limit.fits(wire)


def fits_budget(
    text: str, policy: Policy, *, tool: str | None = None, server: str | None = None, host: HostForm | None = None
) -> bool:
    """True when ``text``, in the form ``host`` sends it, is within the tool's budget and the host's caps (for a
    host that lets an adapter only comment on a result, never replace it)."""
    return HostLimit(Limit.of(policy, policy.budget_for(tool, server)), host or HostForm()).fits(text)


def fits_by_size(
    texts: Sequence[str],
    policy: Policy,
    *,
    tool: str | None = None,
    server: str | None = None,
    host: HostForm | None = None,
) -> bool:
    """True when ``texts`` together certainly fit without tokenizing and no rule of ``policy`` projects them.

    Sound because every o200k/cl100k token covers at least one byte, so their UTF-8 size bounds their tokens; the
    host's caps (``host.max_chars``, ``host.max_bytes``) and ``policy.max_chars`` hold too. For callers that must
    decide before loading the tokenizer (``hostshape hook``'s start-up).
    """
    rule = policy.rule_for(tool, server)
    if rule is not None and (rule.jmespath is not None or rule.fields is not None):
        return False  # a projection applies even to a result that fits
    form = host or HostForm()
    caps = [Limit.of(policy, policy.budget_for(tool, server)).tokens, policy.max_chars, form.max_chars, form.max_bytes]
    return sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) <= min(c for c in caps if c is not None)


def refusal(fault: str, fits: Callable[[str], bool], tool: str | None = None) -> str:
    """The longest wording of the one refusal that ``fits``; the shortest when none does."""
    for wording in REFUSALS:
        text = wording.format(fault=fault, tool=tool or "the tool")
        if fits(text):
            return text
    return REFUSALS[-1]


def refusal_for(
    policy: Policy | None,
    exc: BaseException | str,
    *,
    tool: str | None = None,
    server: str | None = None,
    host: HostForm | None = None,
) -> str:
    """The one refusal for a fault outside the core (an adapter's glue), fitted to the tool's budget and host."""
    policy = policy if policy is not None else Policy()
    fault = exc if isinstance(exc, str) else type(exc).__name__
    limit = HostLimit(Limit.of(policy, policy.budget_for(tool, server)), host or HostForm())
    return refusal(fault, limit.fits, tool)


def glue_fault(
    raw: Any,
    policy: Policy,
    exc: BaseException,
    *,
    tool: str | None = None,
    server: str | None = None,
    host: HostForm | None = None,
) -> str | None:
    """What an adapter hands its host after its OWN glue failed on ``raw`` (the core's faults are answered inside
    ``shape``): None to leave the host's result (``on_fault="pass"``), else the core's answer, fitted to ``host``.

    The one place every adapter asks, so the fault answer changes for all hosts at once.
    """
    if policy.on_fault == "pass":
        return None
    return refusal_for(policy, exc, tool=tool, server=server, host=host)


def shape_for_host(
    raw: Any,
    host: HostForm,
    shape_once: Callable[..., Shaped],
    *,
    policy: Policy,
    tool: str | None,
    server: str | None,
    args: Mapping[str, Any] | None,
) -> Shaped:
    """Shape ``raw`` so that what ``host`` shows the model fits; see ``HostForm``. Never raises.

    ``shape_once(raw, policy, tool, server, args)`` is the core pipeline under one policy. The answer's ``changed``
    is False only when the host's own result is left alone: it fits as the host shows it, or the policy says
    ``on_fault="pass"`` after a fault.
    """
    budget = policy.budget_for(tool, server)
    caps = HostLimit(Limit.of(policy, budget), host)
    note, reserve = _note(host.notes, policy, budget)
    first = shape_once(raw, _with_budget(policy, tool, server, budget - reserve, host, len(note)), tool, server, args)
    if first.fault is not None and not first.changed:
        return first  # fail open, as the policy asked
    if not first.changed and not host.replace and not note and (host.as_is is None or caps.fits(host.as_is)):
        return first  # fits as the host shows it: leave it alone
    if not first.text:
        return first

    shaped = first
    inner = budget - reserve
    for round_ in range(MAX_ROUNDS + 1):
        text = f"{note}\n{shaped.text}" if note else shaped.text
        if caps.fits(text):
            return dataclasses.replace(shaped, text=text, changed=True, truncated=shaped.truncated or bool(note))
        if note and caps.fits(shaped.text) and round_ == MAX_ROUNDS:
            return dataclasses.replace(shaped, changed=True, truncated=True)
        if round_ == MAX_ROUNDS:
            break
        inner = _smaller_budget(inner, text, caps, policy, round_)
        shaped = shape_once(raw, _with_budget(policy, tool, server, inner, host, len(note)), tool, server, args)
    fault = "the host's form of the text does not fit"
    return dataclasses.replace(
        first, text=refusal(fault, caps.fits, tool), changed=True, truncated=True, strategy="refused", fault=fault
    )


def _note(notes: tuple[str, ...], policy: Policy, budget: int) -> tuple[str, int]:
    """The first note whose tokens (safety factor applied, +1 for the joining newline) leave half the budget."""
    if not notes:
        return "", 0
    limit = Limit.of(policy, budget)
    for note in notes:
        reserve = math.ceil(limit.count(note + "\n") * policy.safety_factor) + 1
        if reserve <= budget // 2:
            return note, reserve
    return "", 0


def _smaller_budget(current: int, text: str, caps: HostLimit, policy: Policy, round_: int) -> int:
    """The next budget to try: the current one divided by how much the host's form outgrew the caps."""
    wire = caps.sent(text)
    limit = caps.limit
    growth = max(limit.count(wire) / max(1, limit.tokens), 1.0)
    for cap, size in (
        (caps.host.max_chars, len(wire)),
        (caps.host.max_bytes, len(wire.encode("utf-8", "surrogatepass"))),
        (policy.max_chars, len(wire)),
    ):
        if cap is not None:
            growth = max(growth, size / cap)
    smaller = max(1, min(current - 1, int(current / growth) - 16 * (round_ + 1)))
    return max(1, smaller // 2) if round_ == MAX_ROUNDS - 2 else smaller  # the last rounds leave no doubt


def _with_budget(
    policy: Policy, tool: str | None, server: str | None, budget: int, host: HostForm, note_chars: int
) -> Policy:
    """``policy`` with the budget that applies to ``tool`` set to ``budget`` and the host's character cap (less a
    note's characters) applied to the core's own text."""
    budget = max(1, budget)
    rule = policy.rule_for(tool, server)
    rules = policy.rules
    if rule is not None and rule.budget is not None:
        rules = tuple(dataclasses.replace(r, budget=budget) if r is rule else r for r in rules)
    changes: dict[str, Any] = {"budget": budget, "rules": rules}
    caps = [c for c in (policy.max_chars, host.max_chars, host.max_bytes) if c is not None]
    if caps:
        changes["max_chars"] = max(1, min(caps) - (note_chars + 1 if note_chars else 0))
    return policy.replace(**changes)


def read_for_host(
    handle: str, query: str | None, cursor: str | None, policy: Policy, host: HostForm | None = None
) -> str:
    """``hostshape.wayback.retrieve.read`` with the page fitted to the budget in the form ``host`` sends it. Never
    raises."""
    from hostshape.wayback.retrieve import read

    text = read(handle, query=query, cursor=cursor, policy=policy)
    if host is None or host == HostForm():
        return text
    caps = HostLimit(Limit.of(policy, policy.budget), host)
    budget = policy.budget
    for round_ in range(MAX_ROUNDS):
        if caps.fits(text):
            return text
        budget = _smaller_budget(budget, text, caps, policy, round_)
        text = read(handle, query=query, cursor=cursor, policy=_with_budget(policy, None, None, budget, host, 0))
    return text if caps.fits(text) else refusal("the page does not fit", caps.fits)

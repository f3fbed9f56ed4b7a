"""The seam's API for adapters: the host's form (``HostForm``, ``json_result``), whether a text fits as a host sends
it, the one refusal, the answer to a fault in an adapter's own glue, and the way back fitted to a host.

An adapter describes its host with a ``HostForm`` and calls ``shape(raw, ..., host=form)`` once; the core decides
whether the host's result is left alone, fits the replacement *in the form the host sends it* (for example
``{"result": text}`` JSON-encoded by ADK and LiteLLM) to the tool's budget and to the host's character or byte cap,
heads it with a host note when there is room, and answers a fault. Adapters never count tokens or loop on a budget.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hostshape.fit.budget import Limit
from hostshape.fit.host_limit import MAX_ROUNDS, HostLimit, smaller_budget
from hostshape.input.host_form import HostForm, json_result
from hostshape.output.envelope import PAGE_TOO_BIG, last_resort_texts, refusal
from hostshape.policy import Policy

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from hostshape.fault import Site

__all__ = [
    "HostForm",
    "check_budget",
    "fits_budget",
    "fits_by_size",
    "glue_fault",
    "json_result",
    "read_for_host",
    "refusal_for",
    "smallest_budget_of",
]


def fits_budget(
    text: str, policy: Policy, *, tool: str | None = None, server: str | None = None, host: HostForm | None = None
) -> bool:
    """True when ``text``, in the form ``host`` sends it, is within the tool's budget and the host's caps (for a
    host that lets an adapter only comment on a result, never replace it)."""
    return _caps(policy, tool, server, host).fits(text)


def fits_half_budget(text: str, policy: Policy, *, tool: str | None = None, server: str | None = None) -> bool:
    """True when ``text`` takes at most half the tool's budget (so it can head a shaped result beside it)."""
    return HostLimit(Limit.of(policy, max(1, policy.budget_for(tool, server) // 2)), HostForm()).fits(text)


def smallest_answer_budget(policy: Policy, host: HostForm | None = None, *, margin: int = 2) -> int:
    """The smallest budget within which an answer can still name the handle that gets the result back: the envelope
    alone, ``{"_hostshape":{"truncated":true,"handle":...}}``, in the form ``host`` sends it, plus ``margin``.

    A handle's 24 hex digits are counted as 24 tokens (a digest's digits tokenize anywhere from 6 to 20 o200k
    tokens), so the bound holds for every handle, not only a typical one."""
    import math

    from hostshape.tokens import count_tokens

    text = last_resort_texts(True, "hs_")[0]
    shown = host.wrap(text) if host is not None and host.wrap is not None else text
    worst = count_tokens(shown, policy.encoding) + 24
    return math.ceil(worst * policy.safety_factor) + margin


def smallest_budget_of(policy: Policy, forms: Sequence[HostForm | None]) -> int:
    """The smallest budget a host can answer within in each of ``forms`` (its result's and its error's) while naming
    the handle that gets a result back: the largest ``smallest_answer_budget`` of them."""
    return max(smallest_answer_budget(policy, form) for form in forms)


def check_budget(policy: Policy, host: str, forms: Sequence[HostForm | None] = (None,), shown: str = "") -> int:
    """The smallest budget ``host`` can answer within, in each of ``forms`` (``smallest_budget_of``); raise
    ValueError, naming ``host``, the minimum and the budget (the policy's or a rule's), when one is below it: below
    it every answer would break the budget or lose the way back. ``shown`` says how the host shows that smallest
    answer."""
    smallest = smallest_budget_of(policy, forms)
    budgets = [("budget", policy.budget)] + [(f"rule {r.tool!r} budget", r.budget) for r in policy.rules]
    for what, value in budgets:
        if value is not None and value < smallest:
            raise ValueError(
                f"hostshape for {host} needs a {what} of at least {smallest} tokens (got {value}): the smallest "
                f"answer, {shown or 'an envelope naming the handle'}, takes that many"
            )
    return smallest


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
    return refusal(fault, _caps(policy, tool, server, host).fits, tool)


def glue_fault(
    raw: Any,
    policy: Policy,
    exc: BaseException,
    *,
    host: HostForm | None = None,
    **site: Unpack[Site],
) -> str | None:
    """What an adapter hands its host after its OWN glue failed on ``raw`` (the core's faults are answered inside
    ``shape``), per ``policy.on_fault``: None to leave the host's result (``"pass"``), else the core's answer to a
    fault (``"cut"``: the start of ``raw``'s text, saved for retrieval; ``"refuse"``: the one refusal), fitted to
    ``host``; ``site`` (``tool``, ``server``) goes on to ``after_fault`` as it is.

    The one place every adapter asks, so the fault answer changes for all hosts at once.
    """
    if policy.on_fault == "pass":
        return None
    from hostshape.fault import after_fault

    fits = _caps(policy, site.get("tool"), site.get("server"), host).fits
    return after_fault(raw, policy, exc, fits=fits, **site).text


def _caps(policy: Policy, tool: str | None, server: str | None, host: HostForm | None) -> HostLimit:
    """The tool's budget and the host's caps, for a text in the form ``host`` sends it."""
    return HostLimit(Limit.of(policy, policy.budget_for(tool, server)), host or HostForm())


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
    handle: str,
    query: str | None,
    cursor: str | None,
    policy: Policy,
    host: HostForm | None = None,
    *,
    section: str | None = None,
    lines: str | None = None,
    grep: str | None = None,
) -> str:
    """``hostshape.wayback.retrieve.read`` with the page fitted to the budget in the form ``host`` sends it. Never
    raises."""
    from hostshape.wayback.retrieve import read

    part = {"section": section, "lines": lines, "grep": grep}
    text = read(handle, query=query, cursor=cursor, policy=policy, **part)
    if host is None or host == HostForm():
        return text
    caps = HostLimit(Limit.of(policy, policy.budget), host)
    budget = policy.budget
    for round_ in range(MAX_ROUNDS):
        if caps.fits(text):
            return text
        budget = smaller_budget(budget, text, caps, policy, round_)
        smaller = _with_budget(policy, None, None, budget, host, 0)
        text = read(handle, query=query, cursor=cursor, policy=smaller, **part)
    return text if caps.fits(text) else refusal(PAGE_TOO_BIG, caps.fits)
